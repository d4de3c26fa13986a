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

    // Every running session's pending asks; an agent's connection waits on each one.
    AskInbox {
        id: askInbox
        sessionDirs: sessionsModel.runningDirs
        onAskRaised: (sessionId, host, port) => tray.notify(
            qsTr("Paddock: an agent asks for %1:%2").arg(host).arg(port),
            qsTr("Session %1. Answer in Paddock's Sessions page, or it is denied.").arg(sessionId))
    }

    TrayIcon {
        id: tray
        state: askInbox.count > 0 ? TrayIcon.NeedsAttention
             : sessionsModel.runningCount > 0 ? TrayIcon.Running : TrayIcon.Idle
        detail: askInbox.count > 0 ? qsTr("%n ask(s) waiting for an answer", "", askInbox.count)
              : sessionsModel.runningCount > 0
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
                inbox: askInbox
            }
            SettingsPage {
                objectName: "settingsPage"
            }
        }
    }
}
