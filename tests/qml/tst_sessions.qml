// The Sessions page with a running session whose agent waits on an ask (its helper is played by
// fakeHelper, see qml_test_main.cpp): "Always allow…" shows the change as a diff first, Save
// writes the chosen policy file and answers the ask for the session. And the Quit dialog says
// what happens to running sessions.
import QtQuick
import QtQuick.Controls
import QtTest
import Paddock

Item {
    id: root
    width: 1024
    height: 700

    SessionsModel {
        id: sessions
    }
    AskInbox {
        id: asks
        sessionDirs: sessions.runningDirs
    }
    SessionsPage {
        id: page
        anchors.fill: parent
        model: sessions
        inbox: asks
    }
    QuitDialog {
        id: quitDialog
        runningCount: 2
    }
    SignalSpy {
        id: quitSpy
        target: quitDialog
        signalName: "confirmed"
    }

    TestCase {
        name: "SessionsPage"
        when: windowShown

        function prompt() {
            const list = findChild(page, "askPrompts")
            return list && list.count > 0 ? list.itemAt(0) : null
        }

        function test_1_always_allow_reviews_the_change_saves_it_and_answers_the_ask() {
            tryVerify(function() { return sessions.runningCount === 1 }, 10000)
            tryVerify(function() { return prompt() !== null }, 10000)
            compare(prompt().host, "api.example.test")
            mouseClick(findChild(prompt(), "addToTier"))
            const dialog = findChild(page, "fixDialog")
            tryCompare(dialog, "opened", true)
            compare(dialog.host, "api.example.test")
            // The session's IR names no project here: the one file offered is the user's own.
            const t = dialog.tiers[0]
            compare(t.tier, "user-global")
            // The diff is shown before anything is written.
            tryVerify(function() { return (dialog.inbox.pending.diff || "").indexOf("+") >= 0 }, 10000)
            verify(dialog.inbox.pending.diff.indexOf("api.example.test") >= 0, dialog.inbox.pending.diff)
            const save = findChild(dialog, "saveFix")
            tryCompare(save, "enabled", true)
            mouseClick(save)
            tryCompare(dialog, "visible", false)
            // The ask is answered for the session, with its id, through the control socket.
            tryVerify(function() {
                return fakeHelper.received.indexOf('{"cmd":"ask_reply","decision":"allow_session","id":"ask-1"}') >= 0
            }, 10000, fakeHelper.received.join("\n"))
            // And the domain is in the chosen file from now on.
            const written = fakeHelper.readFile(t.file)
            verify(written.indexOf("allow_domains") >= 0 && written.indexOf("api.example.test") >= 0, written)
            // The page confirms it in words: where it went, and from when.
            const notice = findChild(page, "fixSavedNotice")
            verify(notice !== null)
            tryCompare(notice, "visible", true)
            compare(dialog.inbox.lastSaved.host, "api.example.test")
            compare(dialog.inbox.lastSaved.file, t.file)
        }

        function test_2_the_quit_dialog_says_running_sessions_keep_running() {
            quitDialog.open()
            tryCompare(quitDialog, "opened", true)
            const text = findChild(quitDialog, "quitText").text
            verify(text.indexOf("2 session(s) are running") === 0, text)
            verify(text.indexOf("keep running after Paddock quits") > 0, text)
            verify(text.indexOf("keeps enforcing the policy and recording") > 0, text)
            verify(text.indexOf("paddock stop ID") > 0, text)
            // Cancel quits nothing.
            quitDialog.reject()
            tryCompare(quitDialog, "visible", false)
            compare(quitSpy.count, 0)
            quitDialog.open()
            tryCompare(quitDialog, "opened", true)
            mouseClick(findChild(quitDialog, "confirmQuit"))
            tryCompare(quitSpy, "count", 1)
        }
    }
}
