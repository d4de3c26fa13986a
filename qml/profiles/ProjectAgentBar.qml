// The project and agent choosers.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

RowLayout {
    id: bar
    required property Workspace workspace
    signal addProjectRequested()
    signal customAgentRequested()
    spacing: 8

    Label {
        text: qsTr("Project")
        font.bold: true
    }
    ComboBox {
        id: projectBox
        objectName: "projectBox"
        // Gives way first when the window is narrow (1024 px): the agent choice stays whole.
        Layout.fillWidth: true
        Layout.minimumWidth: 140
        Layout.preferredWidth: 320
        Layout.maximumWidth: 420
        model: bar.workspace.projects
        textRole: "path"
        enabled: count > 0
        displayText: count > 0 ? currentText : qsTr("no project yet")
        currentIndex: bar.workspace.projects.indexOf(bar.workspace.currentProject)
        onActivated: function(index) {
            bar.workspace.currentProject = bar.workspace.projects.pathAt(index)
        }
    }
    Button {
        objectName: "addProjectButton"
        text: qsTr("Add project…")
        highlighted: bar.workspace.projects.count === 0
        onClicked: bar.addProjectRequested()
    }
    Button {
        text: qsTr("Remove")
        enabled: projectBox.currentIndex >= 0
        onClicked: bar.workspace.removeProject(projectBox.currentIndex)
        ToolTip.visible: hovered
        ToolTip.text: qsTr("Forget this project (its files are not touched)")
    }
    Item {
        Layout.preferredWidth: 16
    }
    Label {
        text: qsTr("Agent")
        font.bold: true
    }
    ComboBox {
        id: agentBox
        objectName: "agentBox"
        Layout.minimumWidth: 170
        Layout.preferredWidth: 230
        model: bar.workspace.agents
        textRole: "name"
        currentIndex: bar.workspace.agents.indexOfName(bar.workspace.currentAgent)
        onActivated: function(index) {
            bar.workspace.currentAgent = textAt(index)
        }
        delegate: ItemDelegate {
            id: agentItem
            required property string name
            required property string command
            required property bool detected
            required property bool custom
            width: agentBox.width
            text: name + (custom ? "  (" + command + ")" : detected ? "" : qsTr("  — not on PATH"))
            opacity: detected ? 1.0 : 0.6
            highlighted: agentBox.highlightedIndex === index
        }
    }
    Button {
        text: qsTr("Custom…")
        onClicked: bar.customAgentRequested()
        ToolTip.visible: hovered
        ToolTip.text: qsTr("Add any command as an agent (uses the 'custom' agent preset)")
    }
    Item {
        Layout.fillWidth: true
    }
}
