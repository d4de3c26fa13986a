// Profiles: pick a project and an agent, see the tier stack, edit a layer, and watch the
// effective policy (IR, diff, capabilities, warnings, why) change as you type.
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    padding: 16

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
        document: doc
    }

    // A project chosen: open its repository layer, else its local layer, in the editor. A layer
    // that is not on disk is not opened (an unsaved template would show up in the policy).
    function openDefaultLayer() {
        const p = workspace.currentProject
        if (p.length === 0 || (!doc.openExisting(p + "/.paddock/policy.yaml", "repository")
                               && !doc.openExisting(p + "/.paddock/local.yaml", "local-override")))
            doc.close()
    }
    Connections {
        target: workspace
        function onCurrentChanged() {
            if (doc.path.indexOf(workspace.currentProject + "/") !== 0)
                page.openDefaultLayer()
        }
    }
    Component.onCompleted: openDefaultLayer()

    FolderDialog {
        id: projectDialog
        title: qsTr("Choose a project folder")
        onAccepted: workspace.addProject(selectedFolder.toString())
    }
    CustomAgentDialog {
        id: customAgentDialog
        workspace: workspace
    }

    DropArea {
        anchors.fill: parent
        keys: ["text/uri-list"]
        onDropped: function(drop) {
            for (let i = 0; i < drop.urls.length; ++i)
                workspace.addProject(drop.urls[i].toString())
            drop.acceptProposedAction()
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        ProjectAgentBar {
            Layout.fillWidth: true
            workspace: workspace
            onAddProjectRequested: projectDialog.open()
            onCustomAgentRequested: customAgentDialog.open()
        }

        Label {
            objectName: "workspaceError"
            Layout.fillWidth: true
            visible: workspace.errorString.length > 0 || workspace.projects.status === ModelStatus.Error
            text: workspace.errorString.length > 0 ? workspace.errorString : workspace.projects.errorString
            color: "#c62828"
            wrapMode: Text.Wrap
        }

        StatusPlaceholder {
            objectName: "noProjectPlaceholder"
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: workspace.projects.status
            errorString: workspace.projects.errorString
            empty: workspace.currentProject.length === 0
            emptyText: qsTr("Add a project to begin: click “Add project…” or drop a folder here.\n"
                            + "Then pick the agent you want to run in it.")
        }

        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: workspace.currentProject.length > 0
            orientation: Qt.Horizontal

            TierStackPane {
                SplitView.preferredWidth: 270
                SplitView.minimumWidth: 220
                composer: composer
                document: doc
                project: workspace.currentProject
            }
            LayerEditor {
                SplitView.preferredWidth: 380
                SplitView.minimumWidth: 300
                composer: composer
                document: doc
                project: workspace.currentProject
            }
            EffectivePolicyPane {
                SplitView.fillWidth: true
                SplitView.minimumWidth: 300
                composer: composer
            }
        }
    }
}
