// What the agent may touch, in plain words (Files, Network, Environment, Limits), each line with
// its "why" (the tier, file and rule that decided it) one click away, and one line that says
// whether this machine enforces all of it. The same IR `paddock explain` prints.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: view
    required property PolicyComposer composer
    readonly property SummaryModel summary: composer.summary
    spacing: 6

    StatusPlaceholder {
        Layout.fillWidth: true
        Layout.preferredHeight: implicitHeight
        status: view.summary.status
        errorString: view.summary.errorString
        empty: view.summary.count === 0
        noneText: qsTr("Choose a project to see what the agent may touch.")
        loadingText: qsTr("Working out the policy…")
    }

    Frame {
        objectName: "enforcementLine"
        Layout.fillWidth: true
        visible: view.summary.enforcement.length > 0
        background: Rectangle {
            radius: 4
            color: view.summary.enforcementWarns ? Qt.rgba(0.96, 0.49, 0, 0.15) : Qt.rgba(0.18, 0.49, 0.2, 0.13)
            border.color: view.summary.enforcementWarns ? "#f57c00" : "#2e7d32"
        }
        Column {
            width: parent.width
            spacing: 2
            Label {
                objectName: "enforcementText"
                width: parent.width
                wrapMode: Text.Wrap
                text: (view.summary.enforcementWarns ? "⚠ " : "✓ ") + view.summary.enforcement.charAt(0).toUpperCase()
                      + view.summary.enforcement.slice(1)
            }
            ToolButton {
                objectName: "enforcementDetailsButton"
                visible: view.summary.enforcementDetail.length > 0
                text: enforcementDetail.visible ? qsTr("hide details") : qsTr("details")
                font.pixelSize: 12
                topPadding: 0
                bottomPadding: 0
                onClicked: enforcementDetail.visible = !enforcementDetail.visible
            }
            Label {
                id: enforcementDetail
                objectName: "enforcementDetail"
                visible: false
                width: parent.width
                wrapMode: Text.Wrap
                font.pixelSize: 12
                opacity: 0.8
                text: view.summary.enforcementDetail
            }
        }
    }

    // Plain positioners with explicit widths: each line's height follows its wrapped text.
    Column {
        id: rows
        Layout.fillWidth: true
        Layout.preferredWidth: 1
        spacing: 4

        Repeater {
            objectName: "summaryLines"
            model: view.summary
            delegate: Column {
                id: line
                required property int index
                required property string section
                required property string label
                required property string text
                required property string tier
                required property string file
                required property string rule
                required property string decided
                required property string detail
                required property bool warn
                property bool showWhy: false
                property bool showDetail: false
                width: rows.width
                visible: line.section !== "Enforcement" || line.label !== "On this machine"
                spacing: 2

                Label {
                    // A section heading above its first line.
                    visible: line.index === 0 || view.summary.sectionAt(line.index - 1) !== line.section
                    topPadding: line.index === 0 ? 0 : 8
                    text: line.section
                    font.bold: true
                    font.pixelSize: 15
                }
                Row {
                    width: line.width
                    spacing: 10
                    Label {
                        id: labelText
                        width: Math.min(170, line.width * 0.3)
                        // A run of lines with one label names it once.
                        text: line.index > 0 && view.summary.labelAt(line.index - 1) === line.label ? "" : line.label
                        opacity: 0.8
                        wrapMode: Text.Wrap
                    }
                    Label {
                        width: line.width - labelText.width - whyButton.width - 20
                        text: (line.warn ? "⚠ " : "") + line.text
                        color: line.warn ? "#e65100" : palette.windowText
                        wrapMode: Text.Wrap
                    }
                    ToolButton {
                        id: whyButton
                        width: 56
                        opacity: line.tier.length > 0 || line.rule.length > 0 ? 1 : 0
                        enabled: opacity > 0
                        text: line.showWhy ? qsTr("hide") : qsTr("why?")
                        font.pixelSize: 12
                        topPadding: 0
                        bottomPadding: 0
                        onClicked: line.showWhy = !line.showWhy
                        Accessible.name: qsTr("Why: %1").arg(line.label)
                    }
                }
                // The why in words; the tier, file and rule (what `paddock explain --why` prints)
                // one click deeper.
                Row {
                    x: labelText.width + 10
                    width: line.width - x
                    visible: line.showWhy
                    spacing: 6
                    Label {
                        objectName: "whyText"
                        width: parent.width - detailButton.width - 6
                        wrapMode: Text.Wrap
                        font.pixelSize: 12
                        opacity: 0.8
                        text: line.decided
                    }
                    ToolButton {
                        id: detailButton
                        visible: line.detail.length > 0
                        text: line.showDetail ? qsTr("less") : qsTr("details")
                        font.pixelSize: 11
                        topPadding: 0
                        bottomPadding: 0
                        onClicked: line.showDetail = !line.showDetail
                    }
                }
                Label {
                    objectName: "whyDetail"
                    x: labelText.width + 10
                    width: line.width - x
                    visible: line.showWhy && line.showDetail
                    wrapMode: Text.Wrap
                    font.pixelSize: 11
                    font.family: "monospace"
                    opacity: 0.7
                    text: line.detail
                }
            }
        }
    }
}
