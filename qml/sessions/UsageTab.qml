// What the session used against its limits: CPU time, peak memory and processes (from the
// session's report, written when it ends) next to the limits it ran under (its ir.json).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

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
    readonly property bool ended: tab.info.running === false && (tab.info.cpuMs || -1) >= 0

    GridLayout {
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.margins: 8
        columns: 3
        columnSpacing: 24
        rowSpacing: 8

        Label { text: "" }
        Label { text: qsTr("Used"); font.bold: true }
        Label { text: qsTr("Limit"); font.bold: true }

        Label { text: qsTr("CPU time") }
        Label { objectName: "usageCpu"; text: tab.ended ? tab.secs(tab.info.cpuMs / 1000) : "—" }
        Label { text: tab.secs(tab.info.cpuLimitSecs) }

        Label { text: qsTr("Memory (peak)") }
        Label { text: tab.ended ? tab.bytes(tab.info.maxRss) : "—" }
        Label { text: tab.bytes(tab.info.memoryLimit) }

        Label { text: qsTr("Processes") }
        Label { text: tab.ended ? String(tab.info.pids) : "—" }
        Label { text: (tab.info.processLimit || -1) < 0 ? qsTr("no limit") : String(tab.info.processLimit) }

        Label { text: qsTr("Run time") }
        Label { text: (tab.info.durationMs || -1) >= 0 ? tab.secs(tab.info.durationMs / 1000) : "—" }
        Label { text: tab.secs(tab.info.wallLimitSecs) }

        Label {
            Layout.columnSpan: 3
            Layout.fillWidth: true
            Layout.topMargin: 8
            wrapMode: Text.Wrap
            opacity: 0.7
            text: tab.info.running ? qsTr("The helper reports the session's usage when it ends; the limits are enforced "
                                          + "by the kernel all along.")
                                   : qsTr("As the helper measured it for the whole session.")
        }
    }
}
