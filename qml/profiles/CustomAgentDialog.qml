// Adds a custom command as an agent.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Dialog {
    id: dialog
    required property Workspace workspace
    title: qsTr("Add a custom agent")
    modal: true
    anchors.centerIn: Overlay.overlay
    standardButtons: Dialog.Ok | Dialog.Cancel
    onAccepted: workspace.addCustomAgent(nameField.text, commandField.text)
    onOpened: {
        nameField.text = ""
        commandField.text = ""
        nameField.forceActiveFocus()
    }
    GridLayout {
        columns: 2
        Label { text: qsTr("Name") }
        TextField { id: nameField; Layout.preferredWidth: 280; placeholderText: qsTr("my-agent") }
        Label { text: qsTr("Command") }
        TextField { id: commandField; Layout.preferredWidth: 280; placeholderText: qsTr("my-agent --flag") }
    }
}
