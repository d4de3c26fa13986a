// Left navigation: one button per page; the Sessions entry shows how many are running and how
// many asks wait for an answer.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: rail
    // PADDOCK_GUI_START_PAGE: home | sessions | customize (or profiles) | settings.
    property int currentIndex: Math.max(0, ["home", "sessions", "customize", "settings"]
                                            .indexOf(AppPaths.startPage === "profiles" ? "customize" : AppPaths.startPage))
    property int runningCount: 0
    property int attentionCount: 0
    // Changes that ended sessions hold for review.
    property int reviewCount: 0
    // Direct-mode audit findings waiting for a decision (docs/audit.md).
    property int auditCount: 0
    padding: 0

    background: Rectangle {
        color: rail.palette.alternateBase
        Rectangle {
            anchors.right: parent.right
            width: 1
            height: parent.height
            color: rail.palette.mid
        }
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 4

        RowLayout {
            Layout.bottomMargin: 14
            Layout.topMargin: 4
            spacing: 8
            Image {
                source: "qrc:/Paddock/icons/paddock.png"
                sourceSize.width: 28
                sourceSize.height: 28
            }
            Label {
                text: qsTr("Paddock")
                font.pixelSize: 18
                font.bold: true
            }
        }

        Repeater {
            model: [qsTr("Home"), qsTr("Sessions"), qsTr("Customize"), qsTr("Settings")]
            delegate: ItemDelegate {
                id: entry
                required property int index
                required property string modelData
                objectName: "nav_" + modelData
                Layout.fillWidth: true
                text: index !== 1 ? modelData
                      : modelData + (rail.runningCount > 0 ? "  (" + rail.runningCount + ")" : "")
                        + (rail.attentionCount > 0 ? "  ⚠ " + rail.attentionCount : "")
                        + (rail.reviewCount > 0 ? "  ✎ " + rail.reviewCount : "")
                        + (rail.auditCount > 0 ? "  ! " + rail.auditCount : "")
                highlighted: rail.currentIndex === index
                onClicked: rail.currentIndex = index
            }
        }

        Item {
            Layout.fillHeight: true
        }

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pixelSize: 11
            opacity: 0.7
            text: qsTr("Agents run inside an OS sandbox: the kernel enforces what they may touch.")
        }
    }
}
