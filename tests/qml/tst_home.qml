// A new user's first screen: the project is listed with its agent; what the agent may touch is
// plain words (no IR JSON), every line has its why; the launch options show the `paddock run`
// line that does the same.
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
    LayerDocument {
        id: doc
    }
    PolicyComposer {
        id: liveComposer
        project: workspace.currentProject
        agent: workspace.currentAgentPreset
        document: doc
    }
    Launcher {
        id: launcher
        project: workspace.currentProject
        agentPreset: workspace.currentAgentPreset
        command: workspace.agents.commandOf(workspace.currentAgent)
    }
    HomePage {
        id: page
        anchors.fill: parent
        workspace: workspace
        composer: liveComposer
        launcher: launcher
    }

    TestCase {
        name: "HomePage"
        when: windowShown

        function test_1_the_summary_says_in_words_what_the_agent_may_touch() {
            tryCompare(liveComposer, "status", ModelStatus.Ready, 20000)
            const s = liveComposer.summary
            tryVerify(function() { return s.count > 5 }, 20000)
            wait(50)  // one frame: the lines are laid out
            const text = s.asText()
            verify(text.indexOf("Files · Can write: the project (") === 0, text)
            verify(text.indexOf("Network · Internet: ") >= 0, text)
            verify(text.indexOf("Environment · Secrets stripped") >= 0, text)
            verify(text.indexOf("Limits · ") >= 0, text)
            verify(text.indexOf("\"fs\"") < 0, text)  // no IR JSON on the first screen
            verify(s.enforcement.length > 0)
            const lines = findChild(page, "summaryLines")
            verify(lines !== null)
            compare(lines.count, s.count)
            // Every line is laid out below the one before it, with a height (none collapsed).
            let shown = 0, lastY = -1
            for (let i = 0; i < lines.count; ++i) {
                const d = lines.itemAt(i)
                if (!d.visible) continue
                verify(d.height > 0, "line " + i + " has no height")
                verify(d.y > lastY, "line " + i + " overlaps the one before")
                lastY = d.y
                ++shown
            }
            verify(shown >= s.count - 1)
        }

        function test_2_the_launch_options_show_the_cli_equivalent() {
            const toggle = findChild(page, "optionsToggle")
            mouseClick(toggle)
            const options = findChild(page, "launchOptions")
            tryCompare(options, "visible", true)
            launcher.netMode = "off"
            const cli = findChild(page, "cliEquivalent")
            verify(cli.text.indexOf("paddock run --project ") === 0, cli.text)
            verify(cli.text.indexOf("--net off") > 0, cli.text)
            verify(cli.text.indexOf(" -- claude") > 0, cli.text)
            launcher.netMode = ""
        }

        function test_4_the_project_card_says_in_one_line_what_its_agent_may_do() {
            const line = findChild(page, "cardSummary")
            verify(line !== null)
            tryVerify(function() { return line.text.length > 0 }, 20000)
            verify(line.text.indexOf("writes this folder") === 0, line.text)
            verify(line.text.indexOf(" · secrets hidden") > 0, line.text)
        }

        function test_6_why_is_a_sentence_and_the_rule_is_one_click_deeper() {
            tryCompare(liveComposer, "status", ModelStatus.Ready, 20000)
            const lines = findChild(page, "summaryLines")
            tryVerify(function() { return lines.count > 5 }, 20000)
            const first = lines.itemAt(0)
            first.showWhy = true
            const why = findChild(first, "whyText")
            tryCompare(why, "visible", true)
            verify(why.text.indexOf("Decided by ") === 0, why.text)
            verify(why.text.indexOf("[") < 0 && why.text.indexOf(" at ") < 0, why.text)
            const detail = findChild(first, "whyDetail")
            verify(!detail.visible)
            first.showDetail = true
            tryCompare(detail, "visible", true)
            verify(detail.text.length > 0)
        }

        function test_5_switching_the_agent_updates_the_card_at_once() {
            const label = findChild(page, "cardAgent")
            verify(label !== null)
            const box = findChild(page, "agentBox")
            for (const name of ["codex", "gemini-cli", "claude-code"]) {
                box.activated(workspace.agents.indexOfName(name))
                compare(workspace.currentAgent, name)
                compare(label.text, name)
            }
        }

        // A command the user added is offered with a Remove button, and only it: removing it takes
        // it off the list and the choice falls back to a preset.
        function test_7_a_custom_command_can_be_removed_and_a_preset_cannot() {
            const remove = findChild(page, "removeAgentButton")
            verify(remove !== null)
            workspace.currentAgent = "claude-code"
            verify(!remove.visible)
            verify(workspace.addCustomAgent("qml-test-agent", "sh -c true"))
            compare(workspace.currentAgent, "qml-test-agent")
            tryCompare(remove, "visible", true)
            remove.clicked()
            compare(workspace.agents.indexOfName("qml-test-agent"), -1)
            verify(workspace.currentAgent !== "qml-test-agent")
            tryCompare(remove, "visible", false)
        }

        function test_3_the_launch_button_has_keyboard_focus_and_is_in_view() {
            const b = findChild(page, "launchButton")
            verify(b.visible)
            const p = b.mapToItem(root, 0, 0)
            verify(p.x + b.width <= root.width && p.y + b.height <= root.height)
        }
    }
}
