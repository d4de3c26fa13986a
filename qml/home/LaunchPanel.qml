// One primary Launch action (in the user's terminal: agents are interactive), Run in background
// (output captured into the session), this run's options (the cli-flags tier) behind a toggle,
// the `paddock run` line that does the same, and a refusal's reason with the button that fixes it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: panel
    required property Launcher launcher
    required property PolicyComposer composer
    signal openSessionRequested(string dir)
    signal approveRequested(string file)
    property bool showOptions: false
    spacing: 8

    RowLayout {
        Layout.fillWidth: true
        spacing: 8
        Button {
            id: launchButton
            objectName: "launchButton"
            text: qsTr("Launch in terminal")
            highlighted: true
            focus: true
            enabled: panel.launcher.state !== Launcher.Starting
            onClicked: panel.launcher.launchInTerminal()
            Keys.onReturnPressed: clicked()
            Keys.onEnterPressed: clicked()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Opens your terminal with the agent inside the sandbox")
        }
        Button {
            objectName: "backgroundButton"
            text: qsTr("Run in background")
            enabled: panel.launcher.state !== Launcher.Starting
            onClicked: panel.launcher.launchInBackground()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("No terminal: the agent's output is captured into the session")
        }
        ToolButton {
            objectName: "optionsToggle"
            text: panel.showOptions ? qsTr("Hide options ▴") : qsTr("Options for this run ▾")
            onClicked: panel.showOptions = !panel.showOptions
        }
        Item {
            Layout.fillWidth: true
        }
    }

    // What happened to the last launch.
    Frame {
        objectName: "launchStatus"
        Layout.fillWidth: true
        visible: panel.launcher.message.length > 0 || panel.launcher.state === Launcher.Starting
                 || panel.launcher.state === Launcher.Running
        readonly property bool bad: panel.launcher.state === Launcher.Refused || panel.launcher.state === Launcher.Failed
        background: Rectangle {
            radius: 4
            color: parent.bad ? Qt.rgba(0.78, 0.16, 0.16, 0.12) : Qt.rgba(0.12, 0.53, 0.9, 0.10)
            border.color: parent.bad ? "#c62828" : "#1e88e5"
        }
        RowLayout {
            anchors.fill: parent
            spacing: 10
            Label {
                objectName: "launchMessage"
                Layout.fillWidth: true
                Layout.preferredWidth: 1  // wraps: its width comes from the layout
                wrapMode: Text.Wrap
                text: panel.launcher.state === Launcher.Starting
                      ? (panel.launcher.message.length > 0 ? panel.launcher.message : qsTr("Starting the sandbox…"))
                    : panel.launcher.state === Launcher.Running ? qsTr("Running in the background as session %1.").arg(panel.launcher.sessionId)
                    : panel.launcher.state === Launcher.Refused ? qsTr("Not started: %1").arg(panel.launcher.message)
                    : panel.launcher.message
            }
            Button {
                objectName: "fixButton"
                visible: panel.launcher.fixKind.length > 0
                text: panel.launcher.fixLabel
                highlighted: true
                onClicked: panel.launcher.fixKind === "approve" ? panel.approveRequested(panel.launcher.fixTarget)
                                                                 : panel.launcher.applyFix()
            }
            Button {
                visible: panel.launcher.sessionId.length > 0
                text: qsTr("Open session")
                onClicked: panel.openSessionRequested(AppPaths.sessionsDir + "/" + panel.launcher.sessionId)
            }
            ToolButton {
                text: "✕"
                visible: panel.launcher.state !== Launcher.Starting && panel.launcher.state !== Launcher.Running
                onClicked: panel.launcher.reset()
                Accessible.name: qsTr("Dismiss")
            }
        }
    }

    // The agent's own folder ($AGENT) missing: it could not keep its login or settings.
    Frame {
        Layout.fillWidth: true
        Layout.preferredWidth: 1  // wraps: its width comes from the layout
        visible: panel.composer.missingAgentDir.length > 0
        RowLayout {
            anchors.fill: parent
            Label {
                Layout.fillWidth: true
                Layout.preferredWidth: 1  // wraps: its width comes from the layout
                wrapMode: Text.Wrap
                text: qsTr("The agent's folder %1 does not exist, so it is not shared with the sandbox and the agent "
                           + "cannot keep its login or settings.").arg(panel.composer.missingAgentDir)
            }
            Button {
                text: qsTr("Create it")
                onClicked: {
                    const err = panel.launcher.createDirectory(panel.composer.missingAgentDir)
                    if (err.length === 0) panel.composer.refresh()
                }
            }
        }
    }

    GridLayout {
        objectName: "launchOptions"
        Layout.fillWidth: true
        visible: panel.showOptions
        columns: 2
        columnSpacing: 12
        rowSpacing: 6

        Label { text: qsTr("Network") }
        ComboBox {
            objectName: "netModeBox"
            Layout.fillWidth: true
            textRole: "text"
            valueRole: "value"
            model: [
                {value: "", text: qsTr("As the policy says")},
                {value: "off", text: qsTr("Off: no network at all")},
                {value: "allowlist", text: qsTr("Only the allowed domains")},
                {value: "strict", text: qsTr("Only the allowed domains and ports")},
                {value: "ask", text: qsTr("Allowed domains, and ask me about others")}
            ]
            currentIndex: Math.max(0, indexOfValue(panel.launcher.netMode))
            onActivated: panel.launcher.netMode = currentValue
        }
        Label { text: qsTr("Also allow") }
        TextField {
            objectName: "extraDomainsField"
            Layout.fillWidth: true
            placeholderText: qsTr("domains for this run, e.g. pypi.org files.pythonhosted.org")
            text: panel.launcher.extraDomains
            onEditingFinished: panel.launcher.extraDomains = text
        }
        Label { text: qsTr("Limits") }
        TextField {
            Layout.fillWidth: true
            placeholderText: qsTr("e.g. mem=4GiB,procs=256,cpu=3600")
            text: panel.launcher.limits
            onEditingFinished: panel.launcher.limits = text
        }
        Label { text: qsTr("Stop after") }
        TextField {
            Layout.fillWidth: true
            placeholderText: qsTr("e.g. 2h or 30m (empty: no time limit)")
            text: panel.launcher.timeout
            onEditingFinished: panel.launcher.timeout = text
        }
        Label { text: qsTr("Open ports") }
        TextField {
            objectName: "publishField"
            Layout.fillWidth: true
            placeholderText: qsTr("host ports forwarded in, e.g. 1455 for a login callback")
            text: panel.launcher.publish
            onEditingFinished: panel.launcher.publish = text
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("A program on this computer can reach the agent's server on these ports (127.0.0.1 only)")
        }
        Label { text: qsTr("Ports on this computer") }
        TextField {
            objectName: "hostPortsField"
            Layout.fillWidth: true
            placeholderText: qsTr("reached from inside, e.g. 11434 for Ollama, 1234 for LM Studio")
            text: panel.launcher.hostPorts
            onEditingFinished: panel.launcher.hostPorts = text
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: qsTr("The agent reaches a server on this computer's 127.0.0.1 at these ports (its own "
                               + "127.0.0.1 inside), such as a local model")
        }
        Label {
            text: qsTr("Same as")
            Layout.alignment: Qt.AlignTop
        }
        RowLayout {
            Layout.fillWidth: true
            TextArea {
                objectName: "cliEquivalent"
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.WrapAnywhere
                font.family: "monospace"
                font.pixelSize: 12
                text: panel.launcher.cliEquivalent
            }
            Button {
                Layout.alignment: Qt.AlignTop
                text: qsTr("Copy")
                onClicked: panel.launcher.copyCliEquivalent()
            }
        }
    }
}
