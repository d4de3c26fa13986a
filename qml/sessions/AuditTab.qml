// A direct-mode session's Audit tab (docs/audit.md): the files the agent left in the project that
// a tool on this machine would run, each with the tool and why, and the user's decision on each:
// Quarantine (moved into the session's directory, or its content before the session put back)
// or Keep. Part of the project not audited is said, never shown as an empty list.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: tab
    required property string sessionDir
    property AuditInbox inbox: null
    readonly property AuditModel model: audit
    spacing: 8

    AuditModel {
        id: audit
        objectName: "auditModel"
        sessionDir: tab.sessionDir
        onDecided: if (tab.inbox) tab.inbox.recount(tab.sessionDir)
    }
    // The inbox audits a session whose helper was killed the first time the app sees it.
    Connections {
        target: tab.inbox
        function onChanged() { audit.refresh() }
    }

    Label {
        objectName: "auditSummary"
        Layout.fillWidth: true
        text: audit.summary
        wrapMode: Text.Wrap
        font.bold: audit.pendingCount > 0
        color: audit.status === ModelStatus.Error || audit.pendingCount > 0 ? "#c62828" : palette.windowText
    }

    Repeater {
        model: audit.problems
        delegate: Label {
            required property string modelData
            Layout.fillWidth: true
            text: qsTr("Not audited: %1").arg(modelData)
            color: "#e65100"
            wrapMode: Text.Wrap
        }
    }

    RowLayout {
        Layout.fillWidth: true
        visible: audit.pendingCount > 0
        spacing: 8
        Button {
            objectName: "quarantineAllButton"
            text: qsTr("Quarantine all (%1)").arg(audit.pendingCount)
            highlighted: true
            onClicked: audit.quarantineAll()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Move what the agent created into the session's folder, and put back what it changed")
        }
        Button {
            objectName: "keepAllButton"
            text: qsTr("Keep all")
            onClicked: audit.keepAll()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Leave them in the project: you have read them and want them")
        }
        Item { Layout.fillWidth: true }
    }

    Label {
        objectName: "auditResult"
        Layout.fillWidth: true
        visible: text.length > 0
        text: audit.lastResult
        wrapMode: Text.Wrap
    }

    ListView {
        id: list
        objectName: "auditList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        clip: true
        spacing: 4
        model: audit
        ScrollBar.vertical: ScrollBar {}
        delegate: ItemDelegate {
            id: row
            required property int index
            required property string relPath
            required property string kind
            required property string tools
            required property string why
            required property string decision
            required property string decisionText
            width: ListView.view.width
            contentItem: RowLayout {
                spacing: 8
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: 1
                    Label {
                        Layout.fillWidth: true
                        text: row.relPath
                        font.bold: true
                        elide: Text.ElideMiddle
                    }
                    Label {
                        Layout.fillWidth: true
                        text: (row.kind === "added" ? qsTr("created during the session") : qsTr("changed during the session"))
                              + (row.tools.length > 0 ? " · " + qsTr("run by %1").arg(row.tools) : "")
                        font.pixelSize: 11
                        opacity: 0.75
                        elide: Text.ElideRight
                    }
                    Label {
                        Layout.fillWidth: true
                        text: row.why
                        color: row.decision.length === 0 ? "#c62828" : palette.windowText
                        font.pixelSize: 11
                        wrapMode: Text.Wrap
                    }
                    Label {
                        objectName: "auditDecision"
                        Layout.fillWidth: true
                        text: row.decisionText
                        font.pixelSize: 11
                        font.bold: row.decision.length === 0
                        wrapMode: Text.Wrap
                    }
                }
                Button {
                    objectName: "quarantineButton"
                    Layout.alignment: Qt.AlignTop
                    visible: row.decision.length === 0
                    text: qsTr("Quarantine")
                    onClicked: audit.quarantine(row.index)
                }
                Button {
                    objectName: "keepButton"
                    Layout.alignment: Qt.AlignTop
                    visible: row.decision.length === 0
                    text: qsTr("Keep")
                    onClicked: audit.keep(row.index)
                }
            }
        }
    }
}
