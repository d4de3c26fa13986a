// The window shell: a navigation rail (Home / Sessions / Customize / Settings), one page per
// feature, and the objects every page shares: the workspace (projects, agents, settings), the
// live policy of the current project, the launcher, the sessions list, the inboxes and the tray.
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Paddock

ApplicationWindow {
    id: window
    width: 1280
    height: 800
    minimumWidth: 960
    minimumHeight: 620
    visible: true
    title: qsTr("Paddock")

    property bool quitting: false

    Workspace {
        id: workspace
    }
    LayerDocument {
        id: doc
    }
    PolicyComposer {
        id: composer
        objectName: "composer"
        project: workspace.currentProject
        agent: workspace.currentAgentPreset
        review: workspace.currentReview
        document: doc
    }
    Launcher {
        id: launcher
        objectName: "launcher"
        project: workspace.currentProject
        agentPreset: workspace.currentAgentPreset
        command: workspace.agents.commandOf(workspace.currentAgent)
        profile: workspace.defaultProfile
        terminal: workspace.terminal
        tier: workspace.linuxTier
        review: workspace.currentReview
        onLaunched: (project, agent, mode) => workspace.recordLaunch(project, workspace.currentAgent, mode)
        // The session a launch became is the one the Sessions page shows next (not an older one).
        onSessionStarted: (id, dir) => {
            sessionsModel.reload()
            sessionsPage.selectedDir = dir
        }
    }

    SessionsModel {
        id: sessionsModel
        onSessionFailed: (id, state, why) => tray.notify(qsTr("Paddock: a session %1").arg(state),
                                                         qsTr("Session %1: %2").arg(id).arg(why))
        onDenialsSeen: (id, n) => tray.notify(qsTr("Paddock: %n request(s) denied", "", n),
                                              qsTr("Session %1. See its Network tab to allow a domain.").arg(id))
    }

    // What review-mode sessions hold; a notification when one ends holding changes (docs/review.md).
    ReviewInbox {
        id: reviewInbox
        objectName: "reviewInbox"
        sessions: sessionsModel
        onReviewReady: (id, dir, n, flagged) => tray.notify(qsTr("Paddock: %n change(s) to review", "", n),
            flagged > 0 ? qsTr("Session %1 held its changes; %2 flagged: a tool on your machine would run them. "
                               + "See its Review tab.").arg(id).arg(flagged)
                        : qsTr("Session %1 held its changes: apply them from its Review tab.").arg(id))
    }

    // What direct-mode sessions left for a tool on this machine to run; a notification when one
    // ends leaving some, or when one that ended without its helper is audited (docs/audit.md).
    AuditInbox {
        id: auditInbox
        objectName: "auditInbox"
        sessions: sessionsModel
        onFindingsReady: (id, dir, n) => tray.notify(
            qsTr("Paddock: %n file(s) a tool on your machine would run", "", n),
            qsTr("Session %1 left them in the project. Quarantine or keep them from its Audit tab.").arg(id))
    }

    // Old session records go when the app starts (the Settings page's retention).
    SessionRetention {
        Component.onCompleted: pruneNow()
        onPruned: (removed) => { if (removed > 0) sessionsModel.reload() }
    }

    // Every running session's pending asks; an agent's connection waits on each one.
    AskInbox {
        id: askInbox
        objectName: "askInbox"
        sessionDirs: sessionsModel.runningDirs
        onSessionClosed: (dir) => sessionsModel.reload()
    }

    // Each ask as a desktop notification, with Allow and Deny where the desktop supports them.
    AskNotifier {
        inbox: askInbox
        tray: tray
        onShowRequested: {
            window.showAndRaise()
            nav.show("sessions")
        }
    }

    TrayMenuModel {
        id: trayMenu
        running: {
            const out = []
            for (let i = 0; i < sessionsModel.count; ++i) {
                const s = sessionsModel.get(i)
                if (s.running)
                    out.push({dir: s.dir, label: (s.projectName || s.sessionId) + " · " + (s.agent || s.command)})
            }
            return out
        }
        recent: workspace.recentLaunches
    }

    TrayIcon {
        id: tray
        menu: trayMenu
        keepRunning: workspace.closeToTray
        state: askInbox.count > 0 || sessionsModel.failedCount > 0 || auditInbox.count > 0 ? TrayIcon.NeedsAttention
             : sessionsModel.runningCount > 0 ? TrayIcon.Running : TrayIcon.Idle
        detail: {
            let parts = []
            if (sessionsModel.runningCount > 0) parts.push(qsTr("%n session(s) running", "", sessionsModel.runningCount))
            if (askInbox.count > 0) parts.push(qsTr("%n ask(s) waiting", "", askInbox.count))
            if (sessionsModel.failedCount > 0) parts.push(qsTr("%n failed", "", sessionsModel.failedCount))
            if (auditInbox.count > 0) parts.push(qsTr("%n audit finding(s) to decide", "", auditInbox.count))
            return parts.join(", ")
        }
        onShowRequested: window.showAndRaise()
        onQuitRequested: window.requestQuit()
        onOpenSessionRequested: (dir) => {
            window.showAndRaise()
            nav.show("sessions")
            sessionsPage.selectedDir = dir
        }
        onStopSessionRequested: (dir) => askInbox.stopSession(dir)
        onRelaunchRequested: (index) => window.relaunch(index)
    }

    function showAndRaise() {
        window.show()
        window.raise()
        window.requestActivate()
    }
    function requestQuit() {
        if (sessionsModel.runningCount > 0) {
            showAndRaise()
            quitDialog.open()
        } else {
            window.quitting = true
            Qt.quit()
        }
    }
    function relaunch(index) {
        const r = workspace.recentLaunches[index]
        if (!r) return
        workspace.addProject(r.project)
        workspace.currentAgent = r.agent
        if (r.mode === "terminal") launcher.launchInTerminal()
        else launcher.launchInBackground()
        showAndRaise()
        nav.show("home")
    }

    onClosing: (close) => {
        if (window.quitting || !tray.available || !workspace.closeToTray) {
            if (!window.quitting && sessionsModel.runningCount > 0) {
                close.accepted = false
                quitDialog.open()
            }
            return
        }
        close.accepted = false
        window.hide()
        if (!workspace.trayNoticeShown) {
            tray.notify(qsTr("Paddock keeps running in the tray"),
                        qsTr("Running sessions stay watched. Quit from the tray icon's menu."))
            workspace.trayNoticeShown = true
        }
    }

    QuitDialog {
        id: quitDialog
        runningCount: sessionsModel.runningCount
        onConfirmed: {
            window.quitting = true
            Qt.quit()
        }
    }

    // The folder picker, loaded when first used: where QtQuick.Dialogs cannot load its dialog
    // (a module missing), the page says so instead of doing nothing.
    Loader {
        id: folderDialogLoader
        active: false
        sourceComponent: FolderDialog {
            title: qsTr("Choose a project folder")
            onAccepted: workspace.addProject(selectedFolder.toString())
        }
        onStatusChanged: if (status === Loader.Error)
            workspace.reportError(qsTr("The folder picker cannot open (a Qt Quick Dialogs module is missing). "
                                       + "Drop a folder on the window instead."))
        onLoaded: item.open()
    }
    function pickProject() {
        if (folderDialogLoader.item) folderDialogLoader.item.open()
        else folderDialogLoader.active = true
    }

    // The approval a refused launch asked for; once given, the same launch runs again.
    ApproveDialog {
        id: approveDialog
        composer: composer
        onApproved: if (launcher.fixKind === "approve") launcher.applyFix()
    }

    DropArea {
        anchors.fill: parent
        keys: ["text/uri-list"]
        onDropped: function(drop) {
            for (let i = 0; i < drop.urls.length; ++i)
                workspace.addProject(drop.urls[i].toString())
            drop.acceptProposedAction()
            nav.show("home")
        }
    }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        NavRail {
            id: nav
            objectName: "nav"
            Layout.fillHeight: true
            Layout.preferredWidth: 168
            runningCount: sessionsModel.runningCount
            attentionCount: askInbox.count
            reviewCount: reviewInbox.count
            auditCount: auditInbox.count
        }

        StackLayout {
            id: pages
            objectName: "pages"
            Layout.fillWidth: true
            Layout.fillHeight: true
            // The page whose key the rail shows (NavRail.pages).
            currentIndex: {
                for (let i = 0; i < children.length; ++i)
                    if (children[i].navKey === nav.currentKey) return i
                return 0
            }
            // Keyboard focus goes with the page: keys typed after switching pages never reach a
            // field of the page that was hidden (its editor kept the focus otherwise).
            onCurrentIndexChanged: {
                const page = pages.children[pages.currentIndex]
                if (page && !page.activeFocus) page.forceActiveFocus()
            }

            HomePage {
                objectName: "homePage"
                readonly property string navKey: "home"
                workspace: workspace
                composer: composer
                launcher: launcher
                auditInbox: auditInbox
                onAddProjectRequested: window.pickProject()
                onCustomizeRequested: nav.show("customize")
                onOpenSessionRequested: (dir) => {
                    nav.show("sessions")
                    sessionsPage.selectedDir = dir
                }
                onApproveRequested: (file) => approveDialog.ask(composer.rowOfLayer(file))
                onAuditRequested: (dir) => {
                    nav.show("sessions")
                    sessionsPage.selectedDir = dir
                    sessionsPage.showAudit()
                }
            }
            SessionsPage {
                id: sessionsPage
                objectName: "sessionsPage"
                readonly property string navKey: "sessions"
                model: sessionsModel
                inbox: askInbox
                reviewInbox: reviewInbox
                auditInbox: auditInbox
            }
            ProfilesPage {
                objectName: "profilesPage"
                readonly property string navKey: "customize"
                workspace: workspace
                composer: composer
                document: doc
                onAddProjectRequested: window.pickProject()
            }
            SettingsPage {
                objectName: "settingsPage"
                readonly property string navKey: "settings"
                workspace: workspace
                launcher: launcher
            }
        }
    }
}
