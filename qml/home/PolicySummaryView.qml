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
        Label {
            width: parent.width
            wrapMode: Text.Wrap
            text: (view.summary.enforcementWarns ? "⚠ " : "✓ ") + view.summary.enforcement.charAt(0).toUpperCase()
                  + view.summary.enforcement.slice(1)
        }
    }

    Repeater {
        objectName: "summaryLines"
        model: view.summary
        delegate: ColumnLayout {
            id: line
            required property int index
            required property string section
            required property string label
            required property string text
            required property string tier
            required property string file
            required property string rule
            required property bool warn
            property bool showWhy: false
            visible: line.section !== "Enforcement" || line.label !== "On this machine"
            Layout.fillWidth: true
            spacing: 2

            Label {
                // A section heading above its first line.
                visible: line.index === 0 || view.summary.sectionAt(line.index - 1) !== line.section
                Layout.topMargin: line.index === 0 ? 0 : 8
                text: line.section
                font.bold: true
                font.pixelSize: 15
            }
            RowLayout {
                Layout.fillWidth: true
                Layout.preferredWidth: 1  // wraps: its width comes from the layout
                spacing: 10
                Label {
                    Layout.preferredWidth: 170
                    Layout.alignment: Qt.AlignTop
                    text: line.label
                    opacity: 0.8
                    wrapMode: Text.Wrap
                }
                Label {
                    Layout.fillWidth: true
                    Layout.preferredWidth: 1  // wraps: its width comes from the layout
                    Layout.alignment: Qt.AlignTop
                    text: (line.warn ? "⚠ " : "") + line.text
                    color: line.warn ? "#e65100" : palette.windowText
                    wrapMode: Text.Wrap
                }
                ToolButton {
                    Layout.alignment: Qt.AlignTop
                    visible: line.tier.length > 0 || line.rule.length > 0
                    text: line.showWhy ? qsTr("hide") : qsTr("why?")
                    font.pixelSize: 12
                    onClicked: line.showWhy = !line.showWhy
                    Accessible.name: qsTr("Why: %1").arg(line.label)
                }
            }
            Label {
                Layout.fillWidth: true
                Layout.preferredWidth: 1  // wraps: its width comes from the layout
                Layout.leftMargin: 180
                visible: line.showWhy
                wrapMode: Text.Wrap
                font.pixelSize: 12
                opacity: 0.8
                text: qsTr("Decided by %1%2%3").arg(line.tier.length > 0 ? line.tier : qsTr("Paddock itself"))
                      .arg(line.file.length > 0 ? " (" + line.file + ")" : "")
                      .arg(line.rule.length > 0 ? ": " + line.rule : "")
            }
        }
    }
}
