// Customize: the project and agent, the tier stack, the layer editor, and the effective policy
// (IR, diff, capabilities, warnings, why) changing as you type. The objects are the window's, so
// Home shows the same live policy.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property Workspace workspace
    required property PolicyComposer composer
    required property LayerDocument document
    signal addProjectRequested()
    padding: 16

    // A project chosen: open its repository layer, else its local layer, in the editor. A layer
    // that is not on disk is not opened (an unsaved template would show up in the policy).
    function openDefaultLayer() {
        const p = page.workspace.currentProject
        if (p.length === 0 || (!page.document.openExistingInProject(p, "repository")
                               && !page.document.openExistingInProject(p, "local")))
            page.document.close()
    }
    Connections {
        target: page.workspace
        function onCurrentChanged() {
            if (page.document.path.indexOf(page.workspace.currentProject + "/") !== 0)
                page.openDefaultLayer()
        }
    }
    Component.onCompleted: openDefaultLayer()
    // Shown again: the file may have changed meanwhile (the violation inbox saves fixes into it).
    onVisibleChanged: if (visible) page.document.checkDisk()

    // Ctrl+S saves the layer being edited, only while this page is on screen.
    Shortcut {
        sequences: [StandardKey.Save]
        enabled: page.visible && page.document.loaded && (page.document.dirty || !page.document.existsOnDisk)
        onActivated: page.document.save()
    }

    CustomAgentDialog {
        id: customAgentDialog
        workspace: page.workspace
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        ProjectAgentBar {
            Layout.fillWidth: true
            workspace: page.workspace
            onAddProjectRequested: page.addProjectRequested()
            onCustomAgentRequested: customAgentDialog.open()
        }

        Label {
            Layout.fillWidth: true
            visible: page.workspace.errorString.length > 0 || page.workspace.projects.status === ModelStatus.Error
            text: page.workspace.errorString.length > 0 ? page.workspace.errorString : page.workspace.projects.errorString
            color: "#c62828"
            wrapMode: Text.Wrap
        }

        StatusPlaceholder {
            objectName: "noProjectPlaceholder"
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: page.workspace.projects.status
            errorString: page.workspace.projects.errorString
            empty: page.workspace.currentProject.length === 0
            emptyText: qsTr("Add a project to begin: click “Add project…” or drop a folder here.\n"
                            + "Then pick the agent you want to run in it.")
        }

        // Three panes side by side from 1280 px up; below that the effective policy goes under
        // the editor, so nothing is cut off at 1024×700.
        SplitView {
            id: split
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.workspace.currentProject.length > 0
            orientation: Qt.Horizontal
            readonly property bool wide: width >= 1100

            TierStackPane {
                SplitView.preferredWidth: split.wide ? 270 : 230
                SplitView.minimumWidth: 200
                composer: page.composer
                document: page.document
                project: page.workspace.currentProject
            }
            SplitView {
                SplitView.fillWidth: true
                SplitView.minimumWidth: 420
                orientation: split.wide ? Qt.Horizontal : Qt.Vertical
                LayerEditor {
                    objectName: "layerEditor"
                    SplitView.preferredWidth: split.wide ? 400 : 0
                    SplitView.preferredHeight: split.wide ? 0 : split.height * 0.5
                    SplitView.minimumWidth: 300
                    SplitView.minimumHeight: 200
                    composer: page.composer
                    document: page.document
                    project: page.workspace.currentProject
                }
                EffectivePolicyPane {
                    objectName: "effectivePolicy"
                    SplitView.fillWidth: true
                    SplitView.fillHeight: true
                    SplitView.minimumWidth: 300
                    SplitView.minimumHeight: 200
                    composer: page.composer
                }
            }
        }
    }
}
