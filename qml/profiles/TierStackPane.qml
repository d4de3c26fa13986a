// The tier stack as cards, weakest tier first; click an editable card to open it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: pane
    required property PolicyComposer composer
    required property LayerDocument document
    required property string project
    padding: 6

    ApproveDialog {
        id: approveDialog
        composer: pane.composer
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        Label {
            text: qsTr("Tier stack")
            font.bold: true
            font.pixelSize: 15
        }
        Label {
            Layout.fillWidth: true
            text: qsTr("Weakest first; later tiers add to or narrow earlier ones. Deny always wins.")
            wrapMode: Text.Wrap
            opacity: 0.7
            font.pixelSize: 11
        }
        // Side by side where the pane is wide, one under the other where it is not (1024 px).
        Flow {
            Layout.fillWidth: true
            spacing: 6
            Button {
                objectName: "newRepositoryLayer"
                text: qsTr("New repository layer")
                enabled: !pane.document.loaded || pane.document.path !== pane.document.projectFile(pane.project, "repository")
                onClicked: pane.document.createInProject(pane.project, "repository")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("%1 — committed with the code; needs approval").arg(pane.document.projectFile("", "repository"))
            }
            Button {
                objectName: "newLocalLayer"
                text: qsTr("New local layer")
                enabled: !pane.document.loaded || pane.document.path !== pane.document.projectFile(pane.project, "local")
                onClicked: pane.document.createInProject(pane.project, "local")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("%1 — your own overrides for this checkout").arg(pane.document.projectFile("", "local"))
            }
        }

        // The policy does not evaluate: said above the cards, which stay (the failing one says
        // where).
        Label {
            objectName: "stackError"
            Layout.fillWidth: true
            visible: pane.composer.status === ModelStatus.Error && pane.composer.layers.count > 0
            text: pane.composer.errorFile.length > 0
                  ? qsTr("The layer marked below does not evaluate; the policy panes come back once it does.")
                  : pane.composer.errorString
            wrapMode: Text.Wrap
            color: "#c62828"
            font.pixelSize: 12
        }

        StatusPlaceholder {
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: pane.composer.layers.status
            errorString: pane.composer.layers.errorString
            empty: pane.composer.layers.count === 0
            noneText: qsTr("Evaluating…")
        }

        ListView {
            id: stack
            objectName: "tierStack"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: pane.composer.layers.count > 0
            clip: true
            spacing: 6
            model: pane.composer.layers
            delegate: TierCard {
                width: stack.width - 8
                openFile: pane.document.path
                openDirty: pane.document.dirty
                openOnDisk: pane.document.existsOnDisk
                onOpenRequested: function(file, tier) { pane.document.open(file, tier) }
                onApproveRequested: function(row) { approveDialog.ask(row) }
            }
            ScrollBar.vertical: ScrollBar {}
        }
    }
}
