// What the session uses against its limits: CPU time, memory and processes. While it runs, live
// from its helper (UsageMonitor asks every 1.5 s while this tab is shown); once it ended, from its
// report (CPU time, peak memory, processes started) next to the limits it ran under (ir.json).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Item {
    id: tab
    required property var info
    required property string sessionDir

    function bytes(n) {
        if (n === undefined || n < 0) return qsTr("no limit")
        if (n < 1048576) return (n / 1024).toFixed(0) + " KiB"
        if (n < 1073741824) return (n / 1048576).toFixed(0) + " MiB"
        return (n / 1073741824).toFixed(1) + " GiB"
    }
    function secs(s) {
        if (s === undefined || s < 0) return qsTr("no limit")
        if (s < 120) return s.toFixed(1).replace(/\.0$/, "") + " s"
        if (s < 7200) return (s / 60).toFixed(0) + " min"
        return (s / 3600).toFixed(1) + " h"
    }
    function count(n) { return n === undefined || n < 0 ? qsTr("no limit") : String(n) }
    readonly property bool ended: tab.info.running === false && (tab.info.cpuMs || -1) >= 0
    readonly property bool live: usage.live

    UsageMonitor {
        id: usage
        objectName: "usageMonitor"
        sessionDir: tab.sessionDir
        active: tab.visible && tab.info.running === true
    }

    // One row: what, used, limit, and a bar of used against the limit where there is one.
    component UsageRow: RowLayout {
        id: row
        property string what
        property string used
        property string limit
        property real fraction: -1
        Layout.fillWidth: true
        spacing: 24
        Label { text: row.what; Layout.preferredWidth: 140 }
        Label { text: row.used; Layout.preferredWidth: 100 }
        Label { text: row.limit; Layout.preferredWidth: 100 }
        ProgressBar {
            Layout.preferredWidth: 160
            visible: row.fraction >= 0
            from: 0
            to: 1
            value: Math.min(1, row.fraction)
        }
    }

    ColumnLayout {
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.margins: 8
        spacing: 8

        RowLayout {
            spacing: 24
            Label { text: ""; Layout.preferredWidth: 140 }
            Label { text: tab.live ? qsTr("Now") : qsTr("Used"); font.bold: true; Layout.preferredWidth: 100 }
            Label { text: qsTr("Limit"); font.bold: true; Layout.preferredWidth: 100 }
        }

        UsageRow {
            what: qsTr("CPU time")
            used: tab.live ? tab.secs(usage.cpuMs / 1000) : tab.ended ? tab.secs(tab.info.cpuMs / 1000) : "—"
            limit: tab.live ? tab.secs(usage.cpuLimitMs < 0 ? -1 : usage.cpuLimitMs / 1000) : tab.secs(tab.info.cpuLimitSecs)
            fraction: tab.live && usage.cpuLimitMs > 0 ? usage.cpuMs / usage.cpuLimitMs : -1
            objectName: "usageCpu"
        }
        UsageRow {
            what: tab.live ? qsTr("Memory") : qsTr("Memory (peak)")
            used: tab.live ? tab.bytes(usage.memoryBytes) : tab.ended ? tab.bytes(tab.info.maxRss) : "—"
            limit: tab.bytes(tab.live ? usage.memoryLimit : tab.info.memoryLimit)
            fraction: tab.live && usage.memoryLimit > 0 ? usage.memoryBytes / usage.memoryLimit : -1
            objectName: "usageMemory"
        }
        UsageRow {
            what: tab.live ? qsTr("Processes") : qsTr("Processes (started)")
            used: tab.live ? String(usage.processes) : tab.ended ? String(tab.info.pids) : "—"
            limit: tab.count(tab.live ? usage.processLimit : tab.info.processLimit)
            fraction: tab.live && usage.processLimit > 0 ? usage.processes / usage.processLimit : -1
            objectName: "usageProcesses"
        }
        UsageRow {
            what: qsTr("Run time")
            used: (tab.info.durationMs || -1) >= 0 ? tab.secs(tab.info.durationMs / 1000) : "—"
            limit: tab.secs(tab.info.wallLimitSecs)
        }

        Label {
            Layout.fillWidth: true
            Layout.topMargin: 8
            wrapMode: Text.Wrap
            opacity: 0.7
            text: tab.live ? qsTr("Live from the session's helper: CPU time so far, memory and processes now "
                                  + "(threads included), as the limits count them.")
                : tab.info.running ? (usage.error.length > 0 ? qsTr("No live usage: %1").arg(usage.error)
                                                              : qsTr("Asking the session's helper…"))
                : qsTr("As the helper measured it for the whole session.")
        }
    }
}
