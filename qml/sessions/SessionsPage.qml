// Sessions started from the app or the CLI: the asks waiting for an answer on top, the list of
// sessions on the left, the selected session in detail on the right.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property SessionsModel model
    required property AskInbox inbox
    property ReviewInbox reviewInbox: null
    property AuditInbox auditInbox: null
    property string selectedDir: ""
    property real now: Date.now()
    padding: 16

    // Nothing chosen yet: show the newest session, so a live one is one click from the tray.
    // The selected session's Audit tab (from Home's "Decide…").
    function showAudit() { detail.showAudit() }
    function selectNewest() {
        if (page.selectedDir.length === 0 && page.model.count > 0) page.selectedDir = page.model.dirAt(0)
    }
    Connections {
        target: page.model
        function onCountChanged() { page.selectNewest() }
    }
    Component.onCompleted: selectNewest()
    // "running 3 min" moves on while a session runs (and only then: no timer when idle).
    Timer {
        interval: 15000
        repeat: true
        running: page.visible && page.model.runningCount > 0
        onTriggered: page.now = Date.now()
    }

    ViolationInbox {
        id: violations
        sessionDirs: page.selectedDir.length > 0 ? [page.selectedDir] : []
    }
    FixDialog {
        id: fixDialog
        inbox: violations
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        PageHeader {
            Layout.fillWidth: true
            title: qsTr("Sessions")
            subtitle: qsTr("Every sandboxed run, from this app or from 'paddock run'.")
        }

        Repeater {
            objectName: "askPrompts"
            model: page.inbox
            delegate: AskPrompt {
                required property int index
                Layout.fillWidth: true
                onAnswered: (decision) => page.inbox.answer(index, decision)
                onAddToTierRequested: {
                    const a = page.inbox.askAt(index)
                    const row = page.model.rowOfDir(a.sessionDir)
                    fixDialog.openForDomain(a.host, row >= 0 ? page.model.get(row).project : "", index, page.inbox)
                }
            }
        }

        StatusPlaceholder {
            objectName: "sessionsPlaceholder"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.model.count === 0 || active
            status: page.model.status
            errorString: page.model.errorString
            empty: page.model.count === 0
            emptyText: qsTr("No sessions yet. Launch an agent from Home (or run 'paddock run -- COMMAND' "
                            + "in a project); it shows up here by itself.")
        }

        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.model.count > 0

            ListView {
                id: list
                objectName: "sessionsList"
                SplitView.preferredWidth: Math.max(300, page.width * 0.34)
                SplitView.minimumWidth: 260
                clip: true
                spacing: 2
                model: page.model
                keyNavigationEnabled: true
                ScrollBar.vertical: ScrollBar {}
                delegate: SessionRow {
                    width: list.width
                    auditPending: page.auditInbox && page.auditInbox.revision >= 0 ? page.auditInbox.pendingOf(dir) : 0
                    reviewPending: page.reviewInbox && page.reviewInbox.count >= 0 ? page.reviewInbox.pendingOf(dir) : 0
                    reviewFlagged: page.reviewInbox && page.reviewInbox.count >= 0 ? page.reviewInbox.flaggedOf(dir) : 0
                    selected: dir === page.selectedDir
                    now: page.now
                    onClicked: page.selectedDir = dir
                }
            }

            SessionDetail {
                id: detail
                objectName: "sessionDetail"
                SplitView.fillWidth: true
                SplitView.minimumWidth: 420
                leftPadding: 12
                sessionDir: page.selectedDir
                sessions: page.model
                violations: violations
                reviewInbox: page.reviewInbox
                auditInbox: page.auditInbox
                visible: page.selectedDir.length > 0
                onFixRequested: (row) => fixDialog.openForRow(row)
            }
        }
    }
}
