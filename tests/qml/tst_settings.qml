// Settings as the user meets it: a terminal installed while the app runs is offered without a
// restart; the profiles offered are the engine's.
import QtQuick
import QtTest
import Paddock

Item {
    id: root
    width: 1024
    height: 700

    Workspace {
        id: workspace
    }
    Launcher {
        id: launcher
    }
    SettingsPage {
        id: page
        anchors.fill: parent
        workspace: workspace
        launcher: launcher
    }

    TestCase {
        name: "SettingsPage"
        when: windowShown

        // The profiles offered are the engine's built-in ones, the chosen one shown and kept.
        function test_the_profiles_offered_are_the_engines_and_the_choice_is_kept() {
            const box = findChild(page, "profileBox")
            verify(box !== null)
            compare(box.count, workspace.profileNames.length)
            verify(box.count >= 4, box.count)
            compare(box.currentText, workspace.defaultProfile)
            const other = box.model.indexOf("strict")
            verify(other >= 0, JSON.stringify(box.model))
            box.currentIndex = other
            box.activated(other)
            compare(workspace.defaultProfile, "strict")
            box.activated(box.model.indexOf("default"))
            compare(workspace.defaultProfile, "default")
        }

        function test_a_terminal_installed_after_start_is_listed_when_the_list_opens() {
            const box = findChild(page, "terminalBox")
            verify(box !== null)
            verify(box.model.indexOf("foot") < 0, JSON.stringify(box.model))
            verify(fakeHelper.installTool("foot"))
            box.popup.open()
            tryVerify(function() { return box.model.indexOf("foot") > 0 }, 2000, JSON.stringify(box.model))
            box.popup.close()
            // and when the page is shown again
            verify(fakeHelper.installTool("kitty"))
            page.visible = false
            page.visible = true
            tryVerify(function() { return box.model.indexOf("kitty") > 0 }, 2000, JSON.stringify(box.model))
        }
    }
}
