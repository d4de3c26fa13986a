// A session's events as rows: time, kind, and what happened (host:port, decision, rule, pinned IP,
// bytes each way); follows the newest unless the user scrolled up. Long lines expand on click.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ListView {
    id: log
    property string emptyText: ""
    property int status: ModelStatus.Ready
    clip: true
    ScrollBar.vertical: ScrollBar {}
    // Follow the newest event unless the user scrolled up to read.
    property bool follow: true
    onMovementEnded: follow = atYEnd
    onCountChanged: if (follow) Qt.callLater(positionViewAtEnd)

    function bytes(n) {
        if (n === undefined || n < 0) return ""
        if (n < 1024) return n + " B"
        if (n < 1048576) return (n / 1024).toFixed(1) + " KiB"
        return (n / 1048576).toFixed(1) + " MiB"
    }

    Label {
        anchors.centerIn: parent
        visible: log.count === 0
        text: log.emptyText
        opacity: 0.7
    }

    delegate: Item {
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
        property bool expanded: false
        width: log.width
        implicitHeight: line.implicitHeight + 4
        TapHandler {
            onTapped: entry.expanded = !entry.expanded
        }
        RowLayout {
            id: line
            anchors.fill: parent
            anchors.topMargin: 2
            spacing: 10
            Label {
                Layout.preferredWidth: 92
                Layout.alignment: Qt.AlignTop
                text: entry.time.length > 11 ? entry.time.substring(11, 23) : entry.time
                font.family: "monospace"
                font.pixelSize: 12
                opacity: 0.7
            }
            Label {
                Layout.preferredWidth: 104
                Layout.alignment: Qt.AlignTop
                text: entry.kind
                font.pixelSize: 12
                color: entry.alert ? "#c62828" : palette.windowText
            }
            Label {
                Layout.fillWidth: true
                font.family: "monospace"
                font.pixelSize: 12
                elide: entry.expanded ? Text.ElideNone : Text.ElideRight
                wrapMode: entry.expanded ? Text.WrapAnywhere : Text.NoWrap
                text: {
                    let parts = []
                    if (entry.host.length > 0) parts.push(entry.host + (entry.port > 0 ? ":" + entry.port : ""))
                    if (entry.decision.length > 0) parts.push(entry.decision)
                    if (entry.rule.length > 0) parts.push("[" + entry.rule + "]")
                    if (entry.ip.length > 0) parts.push("→ " + entry.ip)
                    if (entry.bytesTx >= 0)
                        parts.push("↑" + log.bytes(entry.bytesTx) + " ↓" + log.bytes(entry.bytesRx))
                    if (entry.text.length > 0) parts.push(entry.text)
                    return parts.join("  ")
                }
            }
        }
    }
}
