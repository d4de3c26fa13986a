// Grants added and removed against the last saved state, with the hash before and after.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: view
    required property PolicyComposer composer
    readonly property DiffModel diff: composer.diff

    GridLayout {
        Layout.fillWidth: true
        visible: view.diff.status === ModelStatus.Ready
        columns: 2
        Label { text: qsTr("before (%1)").arg(view.diff.baselineName); opacity: 0.7 }
        Label {
            objectName: "hashBefore"
            Layout.fillWidth: true
            text: view.diff.hashBefore
            font.family: "monospace"
            font.pixelSize: 11
            elide: Text.ElideMiddle
        }
        Label { text: qsTr("after (unsaved)"); opacity: 0.7 }
        Label {
            objectName: "hashAfter"
            Layout.fillWidth: true
            text: view.diff.hashAfter
            font.family: "monospace"
            font.pixelSize: 11
            elide: Text.ElideMiddle
            font.bold: view.diff.hashAfter !== view.diff.hashBefore
        }
    }
    StatusPlaceholder {
        Layout.fillWidth: true
        Layout.fillHeight: true
        status: view.diff.status
        errorString: view.diff.errorString
        empty: view.diff.count === 0
        emptyText: qsTr("No change from the last saved state. Edit a layer to see what it grants or takes away.")
        noneText: qsTr("Evaluating…")
    }
    ListView {
        id: list
        objectName: "diffList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        visible: view.diff.status === ModelStatus.Ready && view.diff.count > 0
        clip: true
        model: view.diff
        delegate: RowLayout {
            id: change
            required property string field
            required property string value
            required property bool added
            width: list.width
            Label {
                text: change.added ? "+" : "−"
                color: change.added ? "#2e7d32" : "#c62828"
                font.bold: true
                Layout.preferredWidth: 14
            }
            Label {
                text: change.field
                opacity: 0.75
                Layout.preferredWidth: 170
                elide: Text.ElideRight
                font.pixelSize: 12
            }
            Label {
                Layout.fillWidth: true
                text: change.value
                color: change.added ? "#2e7d32" : "#c62828"
                font.family: "monospace"
                font.pixelSize: 12
                elide: Text.ElideMiddle
            }
        }
        ScrollBar.vertical: ScrollBar {}
    }
}
