// The window shell: a navigation rail (Profiles / Sessions / Settings) and one page per feature.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ApplicationWindow {
    id: window
    width: 1280
    height: 776
    minimumWidth: 900
    minimumHeight: 560
    visible: true
    title: qsTr("Paddock")

    SessionsModel {
        id: sessionsModel
    }

    TrayIcon {
        id: tray
        state: sessionsModel.runningCount > 0 ? TrayIcon.Running : TrayIcon.Idle
        detail: sessionsModel.runningCount > 0
                ? qsTr("%n session(s) running", "", sessionsModel.runningCount) : ""
        onShowRequested: {
            window.show()
            window.raise()
            window.requestActivate()
        }
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        NavRail {
            id: nav
            objectName: "nav"
            Layout.fillHeight: true
            Layout.preferredWidth: 172
            runningCount: sessionsModel.runningCount
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: nav.currentIndex

            ProfilesPage {
                objectName: "profilesPage"
            }
            SessionsPage {
                objectName: "sessionsPage"
                model: sessionsModel
            }
            SettingsPage {
                objectName: "settingsPage"
            }
        }
    }
}
