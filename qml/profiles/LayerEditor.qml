// The layer editor: a form and the YAML text, two views on one document; parse errors inline at
// line:column while typing; Save (atomic), Undo, Revert.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: editor
    required property PolicyComposer composer
    required property LayerDocument document
    required property string project
    padding: 6

    readonly property bool errorHere: composer.status === ModelStatus.Error
                                      && composer.errorFile === document.path
    readonly property bool errorElsewhere: composer.status === ModelStatus.Error && !errorHere

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            // The title gives way (elides) so that Save, Undo and Revert always stay in view.
            Label {
                Layout.fillWidth: true
                Layout.minimumWidth: 40
                elide: Text.ElideRight
                text: editor.document.loaded ? editor.document.tier + qsTr(" layer") : qsTr("Layer editor")
                font.bold: true
                font.pixelSize: 15
            }
            Label {
                visible: editor.document.dirty
                text: qsTr("● unsaved")
                color: "#ef6c00"
            }
            Label {
                visible: editor.document.loaded && !editor.document.existsOnDisk
                text: qsTr("(new file)")
                opacity: 0.7
            }
            Button {
                objectName: "undoButton"
                text: qsTr("Undo")
                enabled: editor.document.canUndo
                onClicked: editor.document.undo()
            }
            Button {
                objectName: "revertButton"
                text: qsTr("Revert")
                enabled: editor.document.dirty
                onClicked: editor.document.revert()
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Back to the saved file (Undo brings your edits back)")
            }
            Button {
                objectName: "saveButton"
                text: qsTr("Save")
                highlighted: editor.document.dirty
                enabled: editor.document.loaded && (editor.document.dirty || !editor.document.existsOnDisk)
                         && !editor.errorHere && !editor.document.changedOnDisk
                onClicked: editor.document.save()
                ToolTip.visible: hovered
                ToolTip.text: editor.document.changedOnDisk ? qsTr("The file changed on disk: reload it first")
                            : editor.errorHere ? qsTr("Fix the error first: a layer that does not parse is never saved")
                                               : qsTr("Save (Ctrl+S)")
            }
        }
        Label {
            Layout.fillWidth: true
            visible: editor.document.loaded
            text: editor.document.path
            font.family: "monospace"
            font.pixelSize: 11
            elide: Text.ElideMiddle
            opacity: 0.8
        }

        // The file changed on disk: reloaded (a notice), or held back under unsaved edits.
        Frame {
            objectName: "diskNotice"
            Layout.fillWidth: true
            visible: editor.document.diskNotice.length > 0
            background: Rectangle {
                radius: 4
                color: editor.document.changedOnDisk ? Qt.rgba(0.96, 0.49, 0, 0.15) : Qt.rgba(0.12, 0.53, 0.9, 0.10)
                border.color: editor.document.changedOnDisk ? "#f57c00" : "#1e88e5"
            }
            RowLayout {
                anchors.fill: parent
                Label {
                    Layout.fillWidth: true
                    Layout.preferredWidth: 1  // wraps: its width comes from the layout
                    text: editor.document.diskNotice
                    wrapMode: Text.Wrap
                }
                Button {
                    objectName: "reloadButton"
                    visible: editor.document.changedOnDisk
                    text: qsTr("Reload")
                    onClicked: editor.document.reload()
                }
            }
        }

        Label {
            objectName: "editorError"
            Layout.fillWidth: true
            visible: editor.errorHere || editor.errorElsewhere || editor.document.errorString.length > 0
            text: editor.document.errorString.length > 0 ? editor.document.errorString
                : editor.errorHere ? qsTr("line %1, column %2: ").arg(editor.composer.errorLine)
                                     .arg(editor.composer.errorColumn)
                                     + editor.composer.errorString.replace(/^.*?:\d+:\d+:\s*/, "")
                : editor.composer.errorString
            color: "#c62828"
            wrapMode: Text.Wrap
            padding: 6
            background: Rectangle {
                color: Qt.rgba(0.78, 0.16, 0.16, 0.08)
                radius: 4
            }
        }

        StatusPlaceholder {
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: ModelStatus.Ready
            empty: !editor.document.loaded
            emptyText: qsTr("Click an editable tier (user, repository, local) to edit it, or create a layer.")
        }

        TabBar {
            id: tabs
            objectName: "editorTabs"
            Layout.fillWidth: true
            visible: editor.document.loaded
            TabButton { text: qsTr("Form") }
            TabButton { text: qsTr("YAML") }
        }
        StackLayout {
            id: views
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: editor.document.loaded
            currentIndex: tabs.currentIndex
            // The hidden view gives up the keyboard (its text must not take keys unseen).
            onCurrentIndexChanged: {
                const view = views.children[views.currentIndex]
                if (view && !view.activeFocus) view.forceActiveFocus()
            }
            LayerForm {
                document: editor.document
                project: editor.project
            }
            YamlView {
                document: editor.document
                errorLine: editor.errorHere ? editor.composer.errorLine : 0
                errorColumn: editor.errorHere ? editor.composer.errorColumn : 0
            }
        }
    }
}
