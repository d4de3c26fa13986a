// The broker's log as a table (time, host:port, decision, rule, pinned IP, bytes), filtered by
// decision and a search text, and above it the denied hosts, each with its reviewed fix, and each
// brokered credential's requests and bytes.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: tab
    required property SessionMonitor monitor
    required property ViolationInbox violations
    signal fixRequested(int row)
    spacing: 6

    EventFilterModel {
        id: filter
        source: tab.monitor
        networkOnly: true
        decision: decisionBox.currentValue
        search: searchField.text
    }

    // The evaluation of the project's saved policy may have changed while the tab was hidden. The
    // refresh resets the inbox's model: it runs after the page switch that shows the tab, not
    // inside it, and several visibility changes in one switch make one refresh.
    onVisibleChanged: if (visible) Qt.callLater(tab.violations.refresh)

    // A fix just saved, confirmed in words: where it went and what happens next.
    Frame {
        objectName: "fixSavedNotice"
        Layout.fillWidth: true
        visible: (tab.violations.lastSaved.host || "").length > 0
        background: Rectangle {
            radius: 4
            color: Qt.rgba(0.18, 0.49, 0.2, 0.13)
            border.color: "#2e7d32"
        }
        RowLayout {
            anchors.fill: parent
            Label {
                Layout.fillWidth: true
                Layout.preferredWidth: 1  // wraps: its width comes from the layout
                wrapMode: Text.Wrap
                text: qsTr("Saved: %1 is allowed in %2 from the next session on.").arg(tab.violations.lastSaved.host || "")
                      .arg(tab.violations.lastSaved.file || "")
                      + (tab.violations.lastSaved.approvalNeeded === true
                         ? " " + qsTr("The file belongs to the project, so Paddock asks you to approve it before that launch.")
                         : "")
                      + " " + qsTr("Sessions already running keep the policy they started with.")
            }
            ToolButton {
                text: "✕"
                onClicked: tab.violations.dismissLastSaved()
                Accessible.name: qsTr("Dismiss")
            }
        }
    }

    // Denied requests, grouped by host.
    ColumnLayout {
        objectName: "deniedHosts"
        Layout.fillWidth: true
        visible: tab.violations.count > 0
        spacing: 2
        Label {
            text: qsTr("Denied")
            font.bold: true
        }
        Repeater {
            model: tab.violations
            delegate: RowLayout {
                id: denied
                required property int index
                required property string host
                required property string ports
                required property int count
                required property string rule
                required property string allowedBy
                Layout.fillWidth: true
                Label {
                    Layout.fillWidth: true
                    text: qsTr("<b>%1</b>%2 · %n time(s) · %3", "", denied.count).arg(denied.host)
                          .arg(denied.ports.length > 0 ? ":" + denied.ports : "").arg(denied.rule)
                    textFormat: Text.StyledText
                    elide: Text.ElideRight
                }
                // Allowed by the saved policy now: said, and not offered again.
                Label {
                    objectName: "allowedNow"
                    visible: denied.allowedBy.length > 0
                    text: qsTr("allowed now by %1").arg(denied.allowedBy.split("/").slice(-2).join("/"))
                    color: "#2e7d32"
                    ToolTip.visible: allowedHover.hovered
                    ToolTip.text: qsTr("New sessions of this project allow %1 (%2)").arg(denied.host).arg(denied.allowedBy)
                    HoverHandler { id: allowedHover }
                }
                Button {
                    objectName: "allowButton"
                    visible: denied.allowedBy.length === 0
                    text: qsTr("Allow…")
                    onClicked: tab.fixRequested(denied.index)
                    ToolTip.visible: hovered
                    ToolTip.text: qsTr("Add %1 to a policy file; you review the change before it is saved").arg(denied.host)
                }
            }
        }
    }

    // Each brokered credential's use in this session (docs/credentials.md).
    ColumnLayout {
        objectName: "credentialUsage"
        Layout.fillWidth: true
        visible: tab.monitor.credentialUsage.length > 0
        spacing: 2
        Label {
            text: qsTr("Credentials")
            font.bold: true
        }
        Repeater {
            model: tab.monitor.credentialUsage
            delegate: Label {
                required property var modelData
                Layout.fillWidth: true
                elide: Text.ElideRight
                text: qsTr("<b>%1</b> · %2 request(s), %3 refused · %4 sent, %5 received")
                      .arg(modelData.name).arg(modelData.requests).arg(modelData.refused)
                      .arg(Qt.locale().formattedDataSize(modelData.bytesTx))
                      .arg(Qt.locale().formattedDataSize(modelData.bytesRx))
                textFormat: Text.StyledText
            }
        }
    }

    RowLayout {
        Layout.fillWidth: true
        ComboBox {
            id: decisionBox
            objectName: "decisionFilter"
            textRole: "text"
            valueRole: "value"
            model: [{value: "all", text: qsTr("All requests")}, {value: "allow", text: qsTr("Allowed")},
                    {value: "deny", text: qsTr("Denied")}]
        }
        TextField {
            id: searchField
            objectName: "networkSearch"
            Layout.fillWidth: true
            placeholderText: qsTr("Search host, rule, address…")
        }
        Label {
            text: qsTr("%n row(s)", "", filter.count)
            opacity: 0.7
        }
    }

    EventLog {
        objectName: "networkLog"
        Layout.fillWidth: true
        Layout.fillHeight: true
        model: filter
        emptyText: tab.monitor.count === 0 ? qsTr("No network activity recorded.") : qsTr("No row matches.")
    }
}
