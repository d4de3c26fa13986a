// A session's Review tab (docs/review.md): what the agent changed, held until you apply it.
// Flagged changes come first with the reason each matters, then conflicts (changed on this
// machine meanwhile, shown side by side, never overwritten), then the safe changes; the selected
// file's diff on the right. Apply all safe, apply the checked ones, apply one flagged change after
// its own confirmation, discard.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: tab
    required property string sessionDir
    required property bool running
    // An agent preset: its Paddock state against your own copy instead of a session's changes.
    property string agent: ""
    property ReviewInbox inbox: null
    readonly property ReviewModel model: review
    property int selectedRow: -1
    property var diff: ({})
    spacing: 8

    ReviewModel {
        id: review
        objectName: "reviewModel"
        sessionDir: tab.sessionDir
        agent: tab.agent
        running: tab.running
        onBusyChanged: if (!busy && tab.inbox) tab.inbox.recount(tab.sessionDir)
        onModelReset: {
            if (tab.selectedRow >= review.count) tab.selectedRow = -1
            tab.diff = tab.selectedRow >= 0 ? review.diffOf(tab.selectedRow) : ({})
        }
    }

    function select(row) {
        tab.selectedRow = row
        tab.diff = row >= 0 ? review.diffOf(row) : ({})
    }

    Label {
        objectName: "reviewSummary"
        Layout.fillWidth: true
        text: review.summary
        wrapMode: Text.Wrap
        font.bold: review.pendingCount > 0
        color: review.status === ModelStatus.Error ? "#c62828" : palette.windowText
    }

    RowLayout {
        Layout.fillWidth: true
        visible: review.reviewMode && review.pendingCount > 0
        spacing: 8
        Button {
            objectName: "applySafeButton"
            text: qsTr("Apply all safe (%1)").arg(review.safeCount)
            highlighted: true
            enabled: review.safeCount > 0 && !review.busy
            onClicked: review.applySafe()
        }
        Button {
            objectName: "applyCheckedButton"
            text: qsTr("Apply selected (%1)").arg(review.checkedCount)
            enabled: review.checkedCount > 0 && !review.busy
            onClicked: review.applyChecked()
        }
        Button {
            text: qsTr("Discard selected")
            enabled: review.checkedCount > 0 && !review.busy
            onClicked: review.discardChecked()
        }
        Item { Layout.fillWidth: true }
        Button {
            objectName: "discardAllButton"
            text: qsTr("Discard all…")
            enabled: !review.busy
            onClicked: discardDialog.open()
        }
    }

    Label {
        Layout.fillWidth: true
        visible: text.length > 0
        text: review.busy ? qsTr("Working…") : review.lastResult
        wrapMode: Text.Wrap
    }

    Repeater {
        model: review.commits
        delegate: Label {
            id: commitLine
            required property var modelData
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Commits on %1 (%2): %3").arg(commitLine.modelData.ref)
                  .arg(commitLine.modelData.repo || qsTr("the project"))
                  .arg(commitLine.modelData.commits.map(c => c.id.substring(0, 8) + " " + c.subject).join("; "))
                  + (commitLine.modelData.problem.length > 0 ? " — " + commitLine.modelData.problem
                     : commitLine.modelData.fastForward ? " — " + qsTr("a fast-forward of your branch") : "")
            color: commitLine.modelData.problem.length > 0 ? "#c62828" : palette.windowText
        }
    }

    SplitView {
        Layout.fillWidth: true
        Layout.fillHeight: true
        orientation: Qt.Horizontal
        visible: review.pendingCount > 0

        ListView {
            id: list
            objectName: "reviewList"
            SplitView.preferredWidth: 420
            SplitView.minimumWidth: 260
            clip: true
            model: review
            currentIndex: tab.selectedRow
            ScrollBar.vertical: ScrollBar {}
            section.property: "section"
            section.delegate: Label {
                required property string section
                width: ListView.view.width
                topPadding: 8
                bottomPadding: 4
                text: section
                wrapMode: Text.Wrap
                font.bold: true
                color: section.startsWith(qsTr("Flagged")) ? "#c62828"
                     : section.startsWith(qsTr("Conflicts")) ? "#e65100" : palette.windowText
            }
            delegate: ItemDelegate {
                id: row
                required property int index
                required property string relPath
                required property string name
                required property string dir
                required property string kind
                required property bool flagged
                required property string reasons
                required property string conflict
                required property string detail
                required property bool picked
                required property bool isDir
                width: ListView.view.width
                highlighted: ListView.isCurrentItem
                onClicked: tab.select(index)
                contentItem: RowLayout {
                    spacing: 6
                    CheckBox {
                        Layout.alignment: Qt.AlignTop
                        checked: row.picked
                        onToggled: review.setChecked(row.index, checked)
                    }
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 1
                        Label {
                            Layout.fillWidth: true
                            elide: Text.ElideMiddle
                            text: "<b>" + row.name + (row.isDir ? "/" : "") + "</b>"
                                  + (row.dir.length > 0 ? "  <span style='color:gray'>" + row.dir + "</span>" : "")
                            textFormat: Text.StyledText
                        }
                        Label {
                            Layout.fillWidth: true
                            text: row.kind + (row.detail.length > 0 ? " · " + row.detail : "")
                            font.pixelSize: 11
                            opacity: 0.75
                            elide: Text.ElideRight
                        }
                        Label {
                            Layout.fillWidth: true
                            visible: row.flagged
                            text: row.reasons
                            color: "#c62828"
                            font.pixelSize: 11
                            wrapMode: Text.Wrap
                        }
                        Label {
                            Layout.fillWidth: true
                            visible: row.conflict.length > 0
                            text: row.conflict
                            color: "#e65100"
                            font.pixelSize: 11
                            wrapMode: Text.Wrap
                        }
                    }
                    Button {
                        Layout.alignment: Qt.AlignTop
                        visible: row.flagged && row.conflict.length === 0
                        text: qsTr("Apply…")
                        enabled: !review.busy
                        onClicked: {
                            confirmDialog.row = row.index
                            confirmDialog.path = row.relPath
                            confirmDialog.reasons = row.reasons
                            confirmDialog.open()
                        }
                    }
                }
            }
        }

        // The selected change: a diff, or both sides of a conflict.
        Pane {
            SplitView.fillWidth: true
            padding: 4
            ColumnLayout {
                anchors.fill: parent
                Label {
                    Layout.fillWidth: true
                    visible: tab.selectedRow < 0
                    text: qsTr("Select a change to see it.")
                    opacity: 0.7
                }
                Label {
                    Layout.fillWidth: true
                    visible: tab.selectedRow >= 0 && (tab.diff.binary === true || tab.diff.error !== undefined
                                                      || tab.diff.tooLarge === true)
                    text: tab.diff.binary ? qsTr("Binary content: no text diff.")
                        : tab.diff.tooLarge ? qsTr("Too many lines differ to show here.")
                        : (tab.diff.error || "")
                    wrapMode: Text.Wrap
                }
                // Conflict: the host's version and the session's, side by side.
                RowLayout {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    visible: tab.selectedRow >= 0 && (tab.diff.conflict || "").length > 0 && tab.diff.before !== undefined
                    Repeater {
                        model: [{title: qsTr("On this machine now"), key: "before"},
                                {title: qsTr("In the session"), key: "after"}]
                        delegate: ColumnLayout {
                            id: side
                            required property var modelData
                            Layout.fillWidth: true
                            Layout.fillHeight: true
                            Label { text: side.modelData.title; font.bold: true }
                            ScrollView {
                                Layout.fillWidth: true
                                Layout.fillHeight: true
                                TextArea {
                                    readOnly: true
                                    selectByMouse: true
                                    font.family: "monospace"
                                    font.pixelSize: 12
                                    text: tab.diff[side.modelData.key] || ""
                                }
                            }
                        }
                    }
                }
                // A change: its unified diff, coloured.
                ListView {
                    objectName: "diffLines"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    visible: tab.selectedRow >= 0 && (tab.diff.conflict || "").length === 0
                    clip: true
                    model: tab.diff.lines || []
                    ScrollBar.vertical: ScrollBar {}
                    delegate: Rectangle {
                        id: diffLine
                        required property var modelData
                        width: ListView.view.width
                        height: line.implicitHeight
                        color: diffLine.modelData.op === "+" ? "#e6ffec" : diffLine.modelData.op === "-" ? "#ffebe9"
                             : diffLine.modelData.op === "@" ? "#ddf4ff" : "transparent"
                        Text {
                            id: line
                            x: 4
                            width: parent.width - 8
                            text: (diffLine.modelData.op === "@" ? "" : diffLine.modelData.op + " ") + diffLine.modelData.text
                            font.family: "monospace"
                            font.pixelSize: 12
                            wrapMode: Text.WrapAnywhere
                            color: "#1f2328"
                        }
                    }
                }
            }
        }
    }

    Dialog {
        id: confirmDialog
        objectName: "confirmFlaggedDialog"
        property int row: -1
        property string path: ""
        property string reasons: ""
        title: qsTr("Apply a flagged change?")
        modal: true
        anchors.centerIn: Overlay.overlay
        ColumnLayout {
            width: 460
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("<b>%1</b> is something a tool on your machine would run, or that points it elsewhere:")
                      .arg(confirmDialog.path)
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: "#c62828"
                text: confirmDialog.reasons
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("Apply it only if you have read it and want it in your project.")
            }
        }
        footer: DialogButtonBox {
            Button {
                text: qsTr("Apply this change")
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: qsTr("Cancel")
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
        onAccepted: review.applyOne(confirmDialog.row)
    }

    Dialog {
        id: discardDialog
        title: tab.agent.length > 0 ? qsTr("Drop every listed change?")
                                    : qsTr("Discard every change of this session?")
        modal: true
        anchors.centerIn: Overlay.overlay
        standardButtons: Dialog.Discard | Dialog.Cancel
        ColumnLayout {
            width: 420
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: tab.agent.length > 0
                      ? qsTr("The agent's next session sees your own copy of these %n path(s) again; its history and "
                             + "login stay.", "", review.pendingCount)
                      : qsTr("The %n change(s) held for review are thrown away; your project stays as it is.", "",
                             review.pendingCount)
            }
        }
        onDiscarded: {
            review.discardAll()
            discardDialog.close()
        }
    }
}
