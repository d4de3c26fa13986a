// One session in detail: state, Stop, and its event log — the broker log (time, host, port,
// decision, rule, pinned IP, bytes) among the other events — live while the session runs.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: detail
    property alias sessionDir: monitor.sessionDir
    readonly property SessionMonitor monitor: monitor
    padding: 0

    SessionMonitor {
        id: monitor
    }

    function bytes(n) {
        if (n < 0) return ""
        if (n < 1024) return n + " B"
        if (n < 1048576) return (n / 1024).toFixed(1) + " KiB"
        return (n / 1048576).toFixed(1) + " MiB"
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: monitor.sessionId
                font.bold: true
                elide: Text.ElideMiddle
            }
            Label {
                objectName: "liveLabel"
                text: monitor.live ? qsTr("live") : qsTr("not running")
                color: monitor.live ? "#1e88e5" : palette.text
                opacity: monitor.live ? 1 : 0.6
            }
            Button {
                objectName: "stopButton"
                text: qsTr("Stop")
                enabled: monitor.live
                onClicked: monitor.stop()
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Kill the agent and everything it started")
            }
        }

        Label {
            Layout.fillWidth: true
            visible: monitor.lastError.length > 0
            text: monitor.lastError
            color: "#c62828"
            wrapMode: Text.Wrap
        }

        StatusPlaceholder {
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: monitor.status
            errorString: monitor.errorString
            empty: monitor.count === 0
            emptyText: qsTr("No events recorded for this session.")
        }

        ListView {
            id: log
            objectName: "eventLog"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: monitor.count > 0
            clip: true
            model: monitor
            ScrollBar.vertical: ScrollBar {}
            // Follow the newest event unless the user scrolled up to read.
            property bool follow: true
            onMovementEnded: follow = atYEnd
            onCountChanged: if (follow) Qt.callLater(positionViewAtEnd)
            delegate: RowLayout {
                id: entry
                required property string time
                required property string kind
                required property string host
                required property int port
                required property string decision
                required property string rule
                required property string ip
                required property var bytesTx
                required property var bytesRx
                required property string text
                required property bool alert
                width: log.width
                spacing: 10
                Label {
                    Layout.preferredWidth: 96
                    text: entry.time.length > 11 ? entry.time.substring(11, 23) : entry.time
                    font.family: "monospace"
                    font.pixelSize: 12
                    opacity: 0.7
                }
                Label {
                    Layout.preferredWidth: 110
                    text: entry.kind
                    font.pixelSize: 12
                    color: entry.alert ? "#c62828" : palette.text
                }
                Label {
                    Layout.fillWidth: true
                    font.family: "monospace"
                    font.pixelSize: 12
                    elide: Text.ElideRight
                    text: {
                        let parts = []
                        if (entry.host.length > 0) parts.push(entry.host + (entry.port > 0 ? ":" + entry.port : ""))
                        if (entry.decision.length > 0) parts.push(entry.decision)
                        if (entry.rule.length > 0) parts.push("[" + entry.rule + "]")
                        if (entry.ip.length > 0) parts.push("→ " + entry.ip)
                        if (entry.bytesTx >= 0)
                            parts.push("↑" + detail.bytes(entry.bytesTx) + " ↓" + detail.bytes(entry.bytesRx))
                        if (entry.text.length > 0) parts.push(entry.text)
                        return parts.join("  ")
                    }
                }
            }
        }
    }
}
