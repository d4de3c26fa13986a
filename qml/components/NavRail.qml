// Left navigation: one button per page; the Sessions entry shows how many are running and how
// many asks wait for an answer.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: rail
    // The app's pages, each by its key: the rail's entries, the start page and every "go to"
    // (show) read this one list, and each of Main.qml's pages names its key (navKey), so that a
    // page is found by its key, never by its place (main_window_test checks both sides).
    readonly property var pages: [
        {key: "home", title: qsTr("Home")},
        {key: "sessions", title: qsTr("Sessions")},
        {key: "customize", title: qsTr("Customize")},
        {key: "settings", title: qsTr("Settings")}
    ]
    function indexOfKey(key) { return pages.findIndex(p => p.key === key) }
    function show(key) {
        const i = indexOfKey(key)
        if (i >= 0) currentIndex = i
    }
    // PADDOCK_GUI_START_PAGE: home | sessions | customize (or profiles) | settings.
    property int currentIndex: Math.max(0, indexOfKey(AppPaths.startPage === "profiles" ? "customize" : AppPaths.startPage))
    readonly property string currentKey: currentIndex >= 0 && currentIndex < pages.length ? pages[currentIndex].key : ""
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
            model: rail.pages
            delegate: ItemDelegate {
                id: entry
                required property int index
                required property var modelData
                objectName: "nav_" + modelData.key
                Layout.fillWidth: true
                text: modelData.key !== "sessions" ? modelData.title
                      : modelData.title + (rail.runningCount > 0 ? "  (" + rail.runningCount + ")" : "")
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
