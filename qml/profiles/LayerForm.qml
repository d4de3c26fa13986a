// The form view of a layer. Every change is a minimal text edit of the YAML (the keys and
// comments the form does not show stay as they are).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ScrollView {
    id: form
    required property LayerDocument document
    required property string project
    contentWidth: availableWidth
    clip: true


    ColumnLayout {
        width: form.availableWidth
        spacing: 10

        GroupBox {
            title: qsTr("Files")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                PathListEditor {
                    objectName: "allowWriteEditor"
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "filesystem"
                    key: "allow_write"
                    title: qsTr("Writable")
                    pickFolders: true
                }
                PathListEditor {
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "filesystem"
                    key: "allow_read"
                    title: qsTr("Read-only")
                    pickFolders: true
                }
                PathListEditor {
                    objectName: "denyEditor"
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "filesystem"
                    key: "deny"
                    title: qsTr("Denied (no read, no write; beats every grant)")
                    pickFolders: true
                }
                PathListEditor {
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "filesystem"
                    key: "deny_write"
                    title: qsTr("Never writable")
                    pickFolders: true
                }
                Label {
                    text: qsTr("Deny presets")
                    font.bold: true
                }
                Flow {
                    Layout.fillWidth: true
                    spacing: 4
                    Repeater {
                        // The engine's lists, named as layers name them; the list's title says what it hides.
                        model: form.document.denyLists()
                        delegate: CheckBox {
                            required property var modelData
                            objectName: "denyList_" + modelData.name
                            text: modelData.name
                            ToolTip.visible: hovered
                            ToolTip.text: modelData.title
                            checked: form.document.revision >= 0
                                     && form.document.list("filesystem", "deny_preset").indexOf(modelData.name) >= 0
                            onToggled: {
                                const l = form.document.list("filesystem", "deny_preset")
                                const i = l.indexOf(modelData.name)
                                if (checked && i < 0)
                                    l.push(modelData.name)
                                if (!checked && i >= 0)
                                    l.splice(i, 1)
                                form.document.setList("filesystem", "deny_preset", l)
                            }
                        }
                    }
                }
            }
        }

        GroupBox {
            title: qsTr("Network")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                CheckBox {
                    text: qsTr("Force network off (a layer can only tighten the mode)")
                    checked: form.document.revision >= 0 && form.document.scalar("network", "mode") === "off"
                    onToggled: form.document.setScalar("network", "mode", checked ? "off" : "")
                }
                PathListEditor {
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "network"
                    key: "allow_domains"
                    title: qsTr("Allowed domains (exact or *.suffix; no IP literals)")
                    placeholder: "api.example.com"
                }
            }
        }

        GroupBox {
            title: qsTr("Environment")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                PathListEditor {
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "environment"
                    key: "pass_through"
                    title: qsTr("Passed through (NAME or PREFIX*)")
                    placeholder: "LANG"
                }
                PathListEditor {
                    Layout.fillWidth: true
                    document: form.document
                    project: form.project
                    section: "environment"
                    key: "deny"
                    title: qsTr("Denied")
                    placeholder: "AWS_*"
                }
            }
        }

        GroupBox {
            title: qsTr("Limits (strictest wins across tiers)")
            Layout.fillWidth: true
            GridLayout {
                anchors.fill: parent
                columns: 3
                Repeater {
                    model: [
                        { key: "cpu_seconds", label: qsTr("CPU time"), hint: qsTr("seconds, e.g. 3600") },
                        { key: "memory", label: qsTr("Memory"), hint: qsTr("e.g. 8GiB, 512MiB") },
                        { key: "processes", label: qsTr("Processes"), hint: qsTr("count, e.g. 512") },
                        { key: "open_files", label: qsTr("Open files"), hint: qsTr("count, e.g. 4096") },
                        { key: "file_size", label: qsTr("File size"), hint: qsTr("e.g. 1GiB") },
                        { key: "wall_time", label: qsTr("Wall time"), hint: qsTr("e.g. 4h, 30m") }
                    ]
                    delegate: LimitField {
                        required property var modelData
                        Layout.columnSpan: 3
                        Layout.fillWidth: true
                        document: form.document
                        key: modelData.key
                        label: modelData.label
                        hint: modelData.hint
                    }
                }
            }
        }
    }
}
