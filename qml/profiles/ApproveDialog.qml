// Approving a repository-side layer: first shows exactly what the saved layer adds.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Dialog {
    id: dialog
    required property PolicyComposer composer
    property int row: -1
    property string blocker: ""
    title: qsTr("Approve this layer?")
    modal: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(640, Overlay.overlay ? Overlay.overlay.width - 40 : 640)
    height: Math.min(520, Overlay.overlay ? Overlay.overlay.height - 40 : 520)

    function ask(r) {
        row = r
        blocker = composer.approvalBlocker(r)
        preview.text = composer.approvalPreview(r)
        open()
    }

    footer: DialogButtonBox {
        Button {
            objectName: "confirmApprove"
            text: qsTr("Approve")
            enabled: dialog.blocker.length === 0
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
    signal approved()
    onAccepted: if (composer.approve(row)) approved()

    ColumnLayout {
        anchors.fill: parent
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Repository layers come with the code, so Paddock runs nothing with them until you approve "
                       + "this exact content (its hash). This is everything the saved layer adds:")
        }
        Label {
            Layout.fillWidth: true
            visible: dialog.blocker.length > 0
            text: dialog.blocker
            color: "#c62828"
            wrapMode: Text.Wrap
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            TextArea {
                id: preview
                readOnly: true
                font.family: "monospace"
                wrapMode: TextEdit.NoWrap
            }
        }
    }
}
