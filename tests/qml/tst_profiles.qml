// A new user's path through the Profiles page: the project is there, the agent is picked; they
// tighten a path in the form and see the diff and the hash change; a typo shows line:column.
import QtQuick
import QtTest
import Paddock

Item {
    id: root
    width: 1280
    height: 780

    Workspace {
        id: workspace
    }
    LayerDocument {
        id: doc
    }
    PolicyComposer {
        id: liveComposer
        objectName: "composer"
        project: workspace.currentProject
        agent: workspace.currentAgentPreset
        document: doc
    }
    ProfilesPage {
        id: page
        anchors.fill: parent
        workspace: workspace
        composer: liveComposer
        document: doc
    }

    TestCase {
        name: "ProfilesPage"
        when: windowShown

        function composer() { return liveComposer }

        function test_1_the_project_loads_with_its_tier_stack_and_ir() {
            const c = composer()
            verify(c !== null)
            tryCompare(c, "status", ModelStatus.Ready, 20000)
            verify(c.irHash.indexOf("sha256:") === 0)
            verify(c.layers.count >= 8)
            verify(c.irJson.indexOf("/secrets") > 0)
            verify(c.irJson.indexOf("/dist\"") < 0)
            compare(c.document.tier, "repository")
        }

        function test_2_tightening_a_path_in_the_form_changes_the_ir_diff_and_hash() {
            const c = composer()
            tryCompare(c, "status", ModelStatus.Ready, 20000)
            tryCompare(c, "busy", false, 20000)
            const before = c.irHash
            // Tighten: type a path into the form's "Denied" list and press Enter.
            const input = findChild(page, "input_deny")
            verify(input !== null)
            input.forceActiveFocus()
            input.text = "$PROJECT/dist"
            keyClick(Qt.Key_Return)
            tryVerify(function() { return c.irHash !== before }, 20000)
            tryCompare(c, "busy", false, 20000)
            compare(c.diff.hashBefore, before)
            compare(c.diff.hashAfter, c.irHash)
            verify(c.diff.count > 0)
            verify(c.irJson.indexOf("/dist\"") > 0)
            verify(c.document.dirty)
            compare(input.text, "")
            verify(c.document.text.indexOf("# keep me") >= 0)
            const hashLabel = findChild(page, "hashAfter")
            compare(hashLabel.text, c.irHash)
        }

        function test_3_undo_brings_the_saved_hash_back() {
            const c = composer()
            c.document.undo()
            tryVerify(function() { return !c.busy && c.irHash === c.baselineHash }, 20000)
            compare(c.diff.count, 0)
        }

        // Revert goes back to the saved file in one click, and Undo brings the edits back.
        function test_3b_revert_goes_back_to_the_saved_file_and_undo_brings_the_edit_back() {
            const c = composer()
            const revert = findChild(page, "revertButton")
            verify(revert !== null)
            tryCompare(c, "busy", false, 20000)
            verify(!c.document.dirty)
            verify(!revert.enabled)
            const saved = c.document.text
            c.document.text = saved + "# an edit\n"
            verify(c.document.dirty)
            verify(revert.enabled)
            revert.clicked()
            compare(c.document.text, saved)
            verify(!c.document.dirty)
            c.document.undo()
            compare(c.document.text, saved + "# an edit\n")
            c.document.undo()
            compare(c.document.text, saved)
            tryVerify(function() { return !c.busy && c.irHash === c.baselineHash }, 20000)
        }

        function test_4_a_typo_is_shown_at_line_and_column() {
            const c = composer()
            c.document.text = c.document.text + "  allow_evrything: true\n"
            tryCompare(c, "status", ModelStatus.Error, 20000)
            verify(c.errorLine > 0)
            const banner = findChild(page, "editorError")
            verify(banner.visible)
            verify(banner.text.indexOf("line " + c.errorLine + ", column " + c.errorColumn) === 0)
            c.document.undo()
            tryCompare(c, "status", ModelStatus.Ready, 20000)
        }

        function test_6_a_file_changed_on_disk_is_never_saved_over() {
            const c = composer()
            const d = c.document
            tryCompare(c, "status", ModelStatus.Ready, 20000)
            const file = d.path
            d.text = d.text + "# typed here, not saved\n"
            verify(d.dirty)
            const newer = fakeHelper.readFile(file) + "# saved elsewhere\n"
            verify(fakeHelper.writeFile(file, newer))
            const notice = findChild(page, "diskNotice")
            tryVerify(function() { return notice.visible && d.changedOnDisk }, 5000)
            const save = findChild(page, "saveButton")
            verify(!save.enabled)
            keyClick(Qt.Key_S, Qt.ControlModifier)
            compare(fakeHelper.readFile(file), newer)
            mouseClick(findChild(page, "reloadButton"))
            compare(d.text, newer)
            verify(!d.dirty && !d.changedOnDisk)
        }

        function test_5_why_names_the_deciding_tier() {
            const c = composer()
            tryCompare(c, "status", ModelStatus.Ready, 20000)
            const a = c.why(c.project + "/secrets/key.txt")
            compare(a.tier, "repository")
            compare(a.allowed, false)
        }
    }
}
