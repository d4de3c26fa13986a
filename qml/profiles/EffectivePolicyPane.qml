// The effective policy, recomputed off the UI thread on every edit: IR, Diff, Capabilities,
// Warnings and Why.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: pane
    required property PolicyComposer composer
    padding: 6

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            Label {
                text: qsTr("Effective policy")
                font.bold: true
                font.pixelSize: 15
            }
            BusyIndicator {
                running: pane.composer.busy
                Layout.preferredWidth: 20
                Layout.preferredHeight: 20
            }
            Item { Layout.fillWidth: true }
        }
        TextField {
            objectName: "irHash"
            Layout.fillWidth: true
            readOnly: true
            selectByMouse: true
            font.family: "monospace"
            font.pixelSize: 11
            text: pane.composer.status === ModelStatus.Error ? qsTr("(no IR: the inputs do not evaluate)")
                  : "ir_hash " + pane.composer.irHash
            onTextChanged: cursorPosition = 0
        }

        TabBar {
            id: tabs
            objectName: "policyTabs"
            Layout.fillWidth: true
            // Each tab as wide as its label: equal widths elided "Warnings (3)".
            TabButton { width: implicitWidth; text: qsTr("IR") }
            TabButton { width: implicitWidth; text: qsTr("Diff") + (pane.composer.diff.count > 0 ? " (" + pane.composer.diff.count + ")" : "") }
            TabButton { width: implicitWidth; text: qsTr("Capabilities") }
            TabButton { width: implicitWidth; text: qsTr("Warnings") + (pane.composer.warnings.count > 0 ? " (" + pane.composer.warnings.count + ")" : "") }
            TabButton { width: implicitWidth; text: qsTr("Why") }
        }
        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex
            IrView { composer: pane.composer }
            DiffView { composer: pane.composer }
            CapabilitiesView { composer: pane.composer }
            WarningsView { composer: pane.composer }
            WhyView { composer: pane.composer }
        }
    }
}
