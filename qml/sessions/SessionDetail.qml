// One session in detail: what it is, Stop and Verify, and tabs: Output (what a background run
// printed), Network (the broker's log as a table with filters and search, and the denied hosts
// with their fixes), Usage (against the limits), Events (everything in events.jsonl), Review
// (a review-mode session's held changes) and Audit (what a direct-mode session left for a tool on
// this machine to run, and the user's decision on it).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: detail
    property alias sessionDir: monitor.sessionDir
    required property SessionsModel sessions
    required property ViolationInbox violations
    // Counts what review-mode sessions hold (the Review tab tells it when it applied something).
    property ReviewInbox reviewInbox: null
    // What direct-mode sessions left for the host's tools (the Audit tab tells it what it decided).
    property AuditInbox auditInbox: null
    readonly property SessionMonitor monitor: monitor
    readonly property int row: detail.sessions.rowOfDir(detail.sessionDir)
    readonly property var info: detail.row >= 0 && detail.sessions.count >= 0 ? detail.sessions.get(detail.row) : ({})
    property string verifyText: ""
    signal fixRequested(int row)
    // A tab by its button's name ("<key>TabButton"), never by its place in the bar.
    function showTab(key) {
        for (let i = 0; i < tabs.count; ++i)
            if (tabs.itemAt(i).objectName === key + "TabButton") {
                tabs.currentIndex = i
                return
            }
    }
    function showAudit() { showTab("audit") }
    readonly property bool networkShown: tabs.currentItem !== null && tabs.currentItem.objectName === "networkTabButton"
    padding: 0

    SessionMonitor {
        id: monitor
        onCountChanged: if (detail.networkShown) detail.violations.reload()
    }
    onSessionDirChanged: detail.verifyText = ""

    function bytes(n) {
        if (n === undefined || n < 0) return ""
        if (n < 1024) return n + " B"
        if (n < 1048576) return (n / 1024).toFixed(1) + " KiB"
        if (n < 1073741824) return (n / 1048576).toFixed(1) + " MiB"
        return (n / 1073741824).toFixed(2) + " GiB"
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            ColumnLayout {
                Layout.fillWidth: true
                spacing: 0
                Label {
                    Layout.fillWidth: true
                    text: (detail.info.projectName || monitor.sessionId) + (detail.info.agent ? " · " + detail.info.agent : "")
                    font.bold: true
                    font.pixelSize: 16
                    elide: Text.ElideRight
                }
                Label {
                    Layout.fillWidth: true
                    text: (monitor.sessionId + " · " + (detail.info.command || "")).replace(/\s+/g, " ")
                    maximumLineCount: 1
                    opacity: 0.7
                    font.pixelSize: 12
                    elide: Text.ElideMiddle
                }
            }
            Label {
                objectName: "liveLabel"
                text: monitor.live ? qsTr("live") : (detail.info.stateWords || qsTr("not running"))
                color: monitor.live ? "#1e88e5" : palette.windowText
                opacity: monitor.live ? 1 : 0.7
            }
            Button {
                objectName: "verifyButton"
                text: qsTr("Verify")
                onClicked: {
                    const r = detail.sessions.verify(detail.row)
                    detail.verifyText = (r.ok ? "✓ " : "✗ ") + r.text
                }
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Recompute the session's hashes and compare them with what the helper attested")
            }
            Button {
                objectName: "stopButton"
                text: qsTr("Stop")
                enabled: monitor.live
                onClicked: monitor.stop()
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Kill the agent and everything it started")
            }
            Button {
                objectName: "removeButton"
                text: qsTr("Remove")
                enabled: !monitor.live && detail.info.running === false
                onClicked: {
                    const err = detail.sessions.remove(detail.row)
                    if (err.length > 0) detail.verifyText = err
                }
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Delete this ended session's records and captured output")
            }
        }

        Label {
            objectName: "configChangesLabel"
            Layout.fillWidth: true
            visible: text.length > 0
            text: detail.info.configChanges || ""
            color: "#c62828"
            wrapMode: Text.Wrap
        }

        Label {
            Layout.fillWidth: true
            visible: text.length > 0
            text: monitor.lastError.length > 0 ? monitor.lastError : detail.verifyText
            color: monitor.lastError.length > 0 || detail.verifyText.startsWith("✗") ? "#c62828" : palette.windowText
            wrapMode: Text.Wrap
        }

        TabBar {
            id: tabs
            objectName: "sessionTabs"
            Layout.fillWidth: true
            // The output where there is some, else the network (the two first tabs).
            currentIndex: monitor.hasOutput ? 0 : 1
            TabButton { objectName: "outputTabButton"; text: qsTr("Output") }
            TabButton { objectName: "networkTabButton"; text: qsTr("Network") }
            TabButton { objectName: "usageTabButton"; text: qsTr("Usage") }
            TabButton { objectName: "eventsTabButton"; text: qsTr("Events") }
            TabButton {
                objectName: "reviewTabButton"
                text: reviewTab.model.pendingCount > 0 ? qsTr("Review (%1)").arg(reviewTab.model.pendingCount)
                                                       : qsTr("Review")
            }
            TabButton {
                objectName: "auditTabButton"
                text: auditTab.model.pendingCount > 0 ? qsTr("Audit (%1)").arg(auditTab.model.pendingCount)
                                                      : qsTr("Audit")
            }
            onCurrentItemChanged: if (detail.networkShown) detail.violations.reload()
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex

            // Output
            ScrollView {
                clip: true
                TextArea {
                    objectName: "outputText"
                    readOnly: true
                    selectByMouse: true
                    font.family: "monospace"
                    wrapMode: TextEdit.WrapAnywhere
                    text: monitor.hasOutput ? monitor.output
                        : qsTr("No captured output: this session was started in a terminal or from the command line, "
                               + "where its output went.")
                }
            }

            // Network
            NetworkTab {
                monitor: monitor
                violations: detail.violations
                onFixRequested: (row) => detail.fixRequested(row)
            }

            // Usage
            UsageTab {
                info: detail.info
                sessionDir: detail.sessionDir
            }

            // Events
            EventLog {
                objectName: "eventLog"
                model: monitor
                emptyText: qsTr("No events recorded for this session.")
                status: monitor.status
            }

            // Review (docs/review.md)
            ReviewTab {
                id: reviewTab
                objectName: "reviewTab"
                sessionDir: detail.sessionDir
                running: detail.info.running === true
                inbox: detail.reviewInbox
            }

            // Audit (docs/audit.md)
            AuditTab {
                id: auditTab
                objectName: "auditTab"
                sessionDir: detail.sessionDir
                inbox: detail.auditInbox
            }
        }
    }
}
