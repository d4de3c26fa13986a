// Settings (terminal, default agent and profile, tray, autostart), the credentials the broker keeps
// for agents, the paths in use and what this machine can enforce (`paddock-helper probe`, as
// `paddock doctor`).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property Workspace workspace
    required property Launcher launcher
    padding: 20

    DoctorModel {
        id: doctor
        Component.onCompleted: refresh()
    }

    // The terminals on PATH, looked up again whenever the page is shown or the list opens: one
    // installed while the app runs is offered without a restart.
    property var terminals: []
    function findTerminals() {
        const found = [qsTr("Automatic")].concat(page.launcher.detectedTerminals())
        if (JSON.stringify(found) !== JSON.stringify(page.terminals)) page.terminals = found
    }
    Component.onCompleted: findTerminals()
    onVisibleChanged: if (visible) findTerminals()

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        clip: true

    ColumnLayout {
        width: scroll.availableWidth
        spacing: 12

        PageHeader {
            Layout.fillWidth: true
            title: qsTr("Settings")
            subtitle: qsTr("How Paddock launches agents, where it looks for things, and what this kernel can enforce.")
        }

        GroupBox {
            title: qsTr("Launching")
            Layout.fillWidth: true
            GridLayout {
                anchors.fill: parent
                columns: 2
                columnSpacing: 16
                Label { text: qsTr("Terminal") }
                ComboBox {
                    objectName: "terminalBox"
                    Layout.fillWidth: true
                    editable: true
                    id: terminalBox
                    model: page.terminals
                    Connections {
                        target: terminalBox.popup
                        function onAboutToShow() { page.findTerminals() }
                    }
                    currentIndex: page.workspace.terminal.length === 0 ? 0 : -1
                    editText: page.workspace.terminal.length === 0 ? qsTr("Automatic") : page.workspace.terminal
                    onActivated: (index) => page.workspace.terminal = index === 0 ? "" : textAt(index)
                    onAccepted: page.workspace.terminal = editText === qsTr("Automatic") ? "" : editText
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Automatic uses the first of: %1").arg(page.launcher.knownTerminals().join(", "))
                }
                Label { text: qsTr("Default agent") }
                ComboBox {
                    Layout.fillWidth: true
                    model: page.workspace.agents
                    textRole: "name"
                    currentIndex: page.workspace.agents.indexOfName(page.workspace.defaultAgent)
                    displayText: currentIndex < 0 ? qsTr("(the first one found)") : currentText
                    onActivated: (index) => page.workspace.defaultAgent = textAt(index)
                }
                Label { text: qsTr("Profile") }
                ComboBox {
                    objectName: "profileBox"
                    Layout.fillWidth: true
                    model: page.workspace.profileNames
                    currentIndex: Math.max(0, model.indexOf(page.workspace.defaultProfile))
                    onActivated: (index) => page.workspace.defaultProfile = textAt(index)
                }
                Label { text: qsTr("Linux sandbox") }
                ComboBox {
                    objectName: "linuxTierBox"
                    Layout.fillWidth: true
                    textRole: "text"
                    valueRole: "value"
                    model: [
                        { value: "namespaces", text: qsTr("Namespaces: the full sandbox (default)") },
                        { value: "landlock", text: qsTr("Landlock and seccomp only: where namespaces are unavailable") }
                    ]
                    currentIndex: Math.max(0, indexOfValue(page.workspace.linuxTier))
                    onActivated: page.workspace.linuxTier = currentValue
                }
                Label {
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.7
                    font.pixelSize: 12
                    visible: page.workspace.linuxTier === "landlock"
                    text: qsTr("Every launch runs without namespaces: no private /tmp; the network off, or "
                               + "through the broker with no local server (nothing can listen on a port); no review "
                               + "mode; and nothing can be created in a folder that holds a protected file (with "
                               + "the built-in lists, the project's top folder is one, and so is .git: git can "
                               + "read there but not commit). "
                               + "docs/capabilities.md lists each loss; 'paddock doctor' says why namespaces are "
                               + "unavailable here.")
                }
            }
        }

        GroupBox {
            title: qsTr("Desktop")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                CheckBox {
                    objectName: "closeToTray"
                    text: qsTr("Closing the window keeps Paddock in the tray")
                    checked: page.workspace.closeToTray
                    onToggled: page.workspace.closeToTray = checked
                }
                CheckBox {
                    objectName: "autostart"
                    text: qsTr("Start Paddock when I log in")
                    checked: page.workspace.autostart
                    onToggled: page.workspace.autostart = checked
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.7
                    font.pixelSize: 12
                    text: qsTr("Writes %1 while this is on, and removes it when you turn it off.")
                          .arg(page.workspace.autostartFile)
                }
            }
        }

        // How long ended sessions' records stay (sessions.json, shared with `paddock sessions --prune`).
        SessionRetention {
            id: retention
        }
        GroupBox {
            title: qsTr("Session records")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                RowLayout {
                    Label { text: qsTr("Keep the records of ended sessions for") }
                    SpinBox {
                        objectName: "keepDays"
                        from: 0
                        to: 3650
                        editable: true
                        value: retention.keepDays
                        onValueModified: retention.keepDays = value
                    }
                    Label { text: qsTr("days") }
                    Button {
                        text: qsTr("Remove older records now")
                        enabled: !retention.busy
                        onClicked: retention.pruneNow()
                    }
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.7
                    font.pixelSize: 12
                    text: retention.errorString.length > 0 ? retention.errorString
                          : retention.lastPrune.length > 0 ? retention.lastPrune
                          : qsTr("Sessions whose changes are still held for review are kept until you apply or discard them.")
                }
            }
        }
        CredentialsView {
            objectName: "credentialsView"
            Layout.fillWidth: true
        }

        // What an agent changed in its Paddock-owned state (docs/agents.md, "Bringing a change
        // out"): the same view as a session's Review tab, against your own copy of its directory.
        GroupBox {
            title: qsTr("Agents' own state")
            Layout.fillWidth: true
            ColumnLayout {
                anchors.fill: parent
                spacing: 8
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    text: qsTr("Inside Paddock an agent writes its settings, history and login into its own copy of its "
                               + "directory, kept here for its next session. Your own agent outside never reads it; "
                               + "bring a change out only after reading it.")
                }
                RowLayout {
                    Label { text: qsTr("Agent") }
                    ComboBox {
                        id: stateAgentBox
                        objectName: "stateAgentBox"
                        Layout.preferredWidth: 240
                        model: page.workspace.agents
                        textRole: "name"
                    }
                }
                ReviewTab {
                    objectName: "agentStateView"
                    Layout.fillWidth: true
                    Layout.preferredHeight: 380
                    sessionDir: ""
                    agent: page.visible ? page.workspace.agents.presetAt(stateAgentBox.currentIndex) : ""
                    running: false
                }
            }
        }

        GroupBox {
            title: qsTr("Paths in use")
            Layout.fillWidth: true
            GridLayout {
                anchors.fill: parent
                columns: 2
                columnSpacing: 16
                Label { text: qsTr("Helper") }
                PathLabel { objectName: "helperPath"; text: AppPaths.helperPath }
                Label { text: qsTr("Resources") }
                PathLabel { text: AppPaths.resourcesDir }
                Label { text: qsTr("Config dir") }
                PathLabel { text: AppPaths.configDir }
                Label { text: qsTr("State dir") }
                PathLabel { text: AppPaths.stateDir }
            }
        }

        GroupBox {
            title: qsTr("What this machine can enforce (paddock-helper probe)")
            Layout.fillWidth: true

            ColumnLayout {
                anchors.fill: parent
                RowLayout {
                    Label {
                        Layout.fillWidth: true
                        text: qsTr("Probed by the same helper that enforces the sandbox.")
                        opacity: 0.75
                    }
                    Button {
                        text: qsTr("Probe again")
                        enabled: doctor.status !== ModelStatus.Loading
                        onClicked: doctor.refresh()
                    }
                }
                StatusPlaceholder {
                    objectName: "doctorPlaceholder"
                    Layout.fillWidth: true
                    Layout.preferredHeight: implicitHeight
                    status: doctor.status
                    errorString: doctor.errorString
                    empty: doctor.count === 0
                    emptyText: qsTr("The helper reported nothing.")
                    loadingText: qsTr("Probing the kernel…")
                }
                ListView {
                    id: facts
                    objectName: "doctorList"
                    Layout.fillWidth: true
                    Layout.preferredHeight: contentHeight
                    interactive: false
                    visible: doctor.status === ModelStatus.Ready && doctor.count > 0
                    model: doctor
                    delegate: RowLayout {
                        id: fact
                        required property string name
                        required property string value
                        width: facts.width
                        Label {
                            Layout.preferredWidth: 260
                            text: fact.name
                            font.family: "monospace"
                        }
                        Label {
                            Layout.fillWidth: true
                            text: fact.value
                            elide: Text.ElideRight
                        }
                    }
                }
            }
        }
    }
    }
}
