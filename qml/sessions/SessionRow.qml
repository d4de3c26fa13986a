// One session as a row users know from container lists: "project · agent · running 3 min ·
// 12 requests, 2 denied", its state as a badge. Click to see it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ItemDelegate {
    id: row
    required property int index
    required property string sessionId
    required property string state
    required property string stateWords
    required property string command
    required property string projectName
    required property string agent
    required property var startedMs
    required property var durationMs
    required property int requests
    required property int denied
    required property int exitCode
    required property string problem
    required property string error
    required property bool attention
    required property bool running
    required property string dir
    property bool selected: false
    // Findings of its audit still waiting for a decision (docs/audit.md).
    property int auditPending: 0
    // Changes it holds for review, and how many of them are flagged (docs/review.md).
    property int reviewPending: 0
    property int reviewFlagged: 0
    property real now: Date.now()

    function duration(ms) {
        if (ms < 0) return ""
        const s = Math.floor(ms / 1000)
        if (s < 60) return qsTr("%1 s").arg(s)
        if (s < 3600) return qsTr("%1 min").arg(Math.floor(s / 60))
        return qsTr("%1 h %2 min").arg(Math.floor(s / 3600)).arg(Math.floor(s % 3600 / 60))
    }
    readonly property string when: running ? qsTr("running %1").arg(duration(now - startedMs))
                                   : durationMs >= 0 ? qsTr("%1 after %2").arg(stateWords).arg(duration(durationMs))
                                   : stateWords
    highlighted: selected
    padding: 8

    contentItem: RowLayout {
        spacing: 10
        Rectangle {
            Layout.preferredWidth: 78
            Layout.preferredHeight: 22
            Layout.alignment: Qt.AlignTop
            radius: 11
            color: row.running ? "#1e88e5" : row.attention || row.state === "failed" ? "#f57c00"
                 : row.state === "exited" && row.exitCode === 0 ? "#2e7d32" : "#607d8b"
            Label {
                anchors.centerIn: parent
                text: row.stateWords
                color: "white"
                font.pixelSize: 12
            }
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Label {
                Layout.fillWidth: true
                text: (row.projectName.length > 0 ? row.projectName : row.sessionId)
                      + " · " + (row.agent.length > 0 ? row.agent : row.command.split(" ")[0] || qsTr("no agent"))
                font.bold: true
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                text: row.when + " · " + qsTr("%n request(s)", "", row.requests)
                      + (row.denied > 0 ? qsTr(", %1 denied").arg(row.denied) : "")
                      + (row.problem.length > 0 ? " · " + row.problem : row.error.length > 0 ? " · " + row.error : "")
                opacity: 0.75
                font.pixelSize: 12
                elide: Text.ElideRight
            }
            Label {
                objectName: "rowReview"
                Layout.fillWidth: true
                visible: row.reviewPending > 0
                text: qsTr("%n change(s) to review", "", row.reviewPending)
                      + (row.reviewFlagged > 0 ? qsTr(", %1 flagged").arg(row.reviewFlagged) : "")
                color: row.reviewFlagged > 0 ? "#c62828" : "#1565c0"
                font.pixelSize: 12
                elide: Text.ElideRight
            }
            Label {
                objectName: "rowAudit"
                Layout.fillWidth: true
                visible: row.auditPending > 0
                text: qsTr("%n file(s) for a tool on this machine to run: decide in its Audit tab", "", row.auditPending)
                color: "#c62828"
                font.pixelSize: 12
                elide: Text.ElideRight
            }
        }
    }
}
