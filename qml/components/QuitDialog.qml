// Quitting while sessions run: they keep running under their helpers (which own them, their
// records and their control sockets), so quitting the app orphans nothing and stops nothing.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Dialog {
    id: dialog
    property int runningCount: 0
    signal confirmed()
    objectName: "quitDialog"
    title: qsTr("Quit Paddock?")
    modal: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(520, Overlay.overlay ? Overlay.overlay.width - 40 : 520)
    footer: DialogButtonBox {
        Button {
            objectName: "confirmQuit"
            text: qsTr("Quit")
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
    onAccepted: dialog.confirmed()

    Label {
        objectName: "quitText"
        width: parent.width
        wrapMode: Text.Wrap
        text: qsTr("%n session(s) are running. They keep running after Paddock quits: each one belongs to its "
                   + "own sandbox helper, which keeps enforcing the policy and recording the session. Open Paddock "
                   + "again to watch or stop them, or stop one from a terminal with 'paddock stop ID'.", "",
                   dialog.runningCount)
    }
}
