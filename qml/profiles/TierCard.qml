// One tier: name, file, applies (and the condition that decided), signature, lock, approval.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: card
    required property int index
    required property string tier
    required property string file
    required property bool exists
    required property bool applies
    required property string condition
    required property string signature
    required property bool immutable
    required property string approval
    required property bool editable
    required property string error
    property string openFile
    // The open file has edits not saved yet (the states shown are the saved file's), or is not
    // on disk at all yet.
    property bool openDirty: false
    property bool openOnDisk: true
    signal openRequested(string file, string tier)
    signal approveRequested(int row)

    readonly property bool isOpen: openFile === file
    opacity: exists ? 1.0 : 0.55
    padding: 8

    // The click area lives in the background so the Frame keeps exactly one content child
    // (its implicit size comes from it).
    background: Rectangle {
        radius: 6
        color: card.isOpen ? Qt.rgba(0.12, 0.53, 0.90, 0.12) : card.palette.base
        border.color: card.isOpen ? "#1e88e5" : card.palette.mid
        border.width: card.isOpen ? 2 : 1
        MouseArea {
            anchors.fill: parent
            enabled: card.editable
            cursorShape: card.editable ? Qt.PointingHandCursor : Qt.ArrowCursor
            onClicked: card.openRequested(card.file, card.tier)
        }
    }

    ColumnLayout {
        width: card.availableWidth
        spacing: 3
        RowLayout {
            Layout.fillWidth: true
            Label {
                text: (card.index + 1) + ". " + card.tier
                font.bold: true
                Layout.fillWidth: true
            }
            Label {
                visible: card.immutable
                text: "🔒 " + qsTr("immutable")
                color: "#6a1b9a"
                font.pixelSize: 11
            }
            Badge {
                text: !card.exists ? qsTr("absent") : card.applies ? qsTr("applies") : qsTr("skipped")
                tint: !card.exists ? "#9e9e9e" : card.applies ? "#2e7d32" : "#757575"
            }
        }
        Label {
            Layout.fillWidth: true
            text: card.file
            font.family: "monospace"
            font.pixelSize: 11
            elide: Text.ElideMiddle
            ToolTip.visible: fileHover.hovered
            ToolTip.text: card.file
            HoverHandler { id: fileHover }
        }
        Label {
            Layout.fillWidth: true
            visible: card.condition.length > 0
            text: qsTr("when: ") + card.condition
            wrapMode: Text.Wrap
            font.pixelSize: 11
            opacity: 0.8
        }
        RowLayout {
            visible: card.exists && card.tier !== "cli-flags" && card.file.indexOf("builtin:") !== 0
            spacing: 6
            Badge {
                // Built-ins ship with the binary; only files on disk carry signatures.
                visible: card.file.indexOf("builtin:") !== 0
                text: qsTr("signature: ") + card.signature
                tint: card.signature === "verified" ? "#2e7d32" : card.signature === "failed" ? "#c62828" : "#607d8b"
            }
            Badge {
                objectName: "approvalBadge"
                visible: card.approval !== "not needed"
                text: card.approval
                tint: card.approval === "approved" ? "#2e7d32" : "#ef6c00"
            }
        }
        Label {
            Layout.fillWidth: true
            visible: card.isOpen && card.openDirty
            text: card.openOnDisk ? qsTr("Unsaved edits in the editor: these states are the saved file's.")
                                  : qsTr("Not saved yet: save it, then approve it before a launch uses it.")
            wrapMode: Text.Wrap
            font.pixelSize: 11
            color: "#ef6c00"
        }
        Label {
            objectName: "cardError"
            Layout.fillWidth: true
            visible: card.error.length > 0
            text: card.error
            wrapMode: Text.Wrap
            font.pixelSize: 11
            color: "#c62828"
        }
        Button {
            objectName: "approveButton"
            visible: card.approval === "unapproved"
            text: qsTr("Review and approve…")
            onClicked: card.approveRequested(card.index)
        }
    }
}
