// "Allow this domain from now on": the change to the chosen tier's policy file, shown as a diff
// before anything is saved; Save writes it atomically (only if the file did not change since).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Dialog {
    id: dialog
    required property ViolationInbox inbox
    objectName: "fixDialog"
    property string host: ""
    property string project: ""
    property int violationRow: -1
    property int askRow: -1
    property AskInbox askInbox: null
    property var tiers: []
    property string saveError: ""
    title: qsTr("Allow %1 from now on?").arg(dialog.host)
    modal: true
    anchors.centerIn: Overlay.overlay
    width: Math.min(720, Overlay.overlay ? Overlay.overlay.width - 40 : 720)
    height: Math.min(560, Overlay.overlay ? Overlay.overlay.height - 40 : 560)

    function propose() {
        const t = dialog.tiers[tierBox.currentIndex]
        if (!t) return
        dialog.saveError = ""
        if (dialog.violationRow >= 0) dialog.inbox.proposeFix(dialog.violationRow, t.tier)
        else dialog.inbox.proposeDomain(dialog.host, dialog.project, t.tier)
    }
    function openForRow(row) {
        dialog.violationRow = row
        dialog.askRow = -1
        dialog.askInbox = null
        dialog.host = dialog.inbox.data(dialog.inbox.index(row, 0), ViolationInbox.HostRole)
        dialog.project = dialog.inbox.data(dialog.inbox.index(row, 0), ViolationInbox.ProjectRole)
        dialog.tiers = dialog.inbox.fixTiers(dialog.project)
        tierBox.currentIndex = 0
        propose()
        open()
    }
    function openForDomain(host, project, askRow, askInbox) {
        dialog.violationRow = -1
        dialog.host = host
        dialog.project = project
        dialog.askRow = askRow
        dialog.askInbox = askInbox
        dialog.tiers = dialog.inbox.fixTiers(project)
        tierBox.currentIndex = 0
        propose()
        open()
    }

    footer: DialogButtonBox {
        Button {
            objectName: "saveFix"
            text: qsTr("Save")
            enabled: (dialog.inbox.pending.diff || "").length > 0 && (dialog.inbox.pending.error || "").length === 0
            DialogButtonBox.buttonRole: DialogButtonBox.ApplyRole
            onClicked: {
                const err = dialog.inbox.applyPending()
                if (err.length > 0) {
                    dialog.saveError = err
                    return
                }
                if (dialog.askInbox && dialog.askRow >= 0) dialog.askInbox.answer(dialog.askRow, "allow_session")
                dialog.close()
            }
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
    }
    onRejected: dialog.inbox.discardPending()

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Add it to") }
            ComboBox {
                id: tierBox
                objectName: "fixTierBox"
                Layout.fillWidth: true
                model: dialog.tiers
                textRole: "label"
                onActivated: dialog.propose()
            }
        }
        PathLabel {
            Layout.fillWidth: true
            text: dialog.inbox.pending.file || ""
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: (dialog.inbox.pending.error || "").length > 0 || dialog.saveError.length > 0
            text: dialog.saveError.length > 0 ? dialog.saveError : (dialog.inbox.pending.error || "")
            color: "#c62828"
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: dialog.inbox.pending.approvalNeeded === true
            opacity: 0.8
            text: qsTr("This file belongs to the project, so Paddock asks you to approve it again before the next launch.")
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            TextArea {
                objectName: "fixDiff"
                readOnly: true
                font.family: "monospace"
                wrapMode: TextEdit.NoWrap
                text: dialog.inbox.pending.diff || ""
            }
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            opacity: 0.7
            font.pixelSize: 12
            text: qsTr("Only the lines marked + change; comments and everything else in the file stay as they are. "
                       + "Sessions already running keep the policy they started with.")
        }
    }
}
