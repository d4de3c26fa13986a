// Lint findings, warnings (dropped patterns, unapproved layers) and taint.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: view
    required property PolicyComposer composer
    StatusPlaceholder {
        Layout.fillWidth: true
        Layout.fillHeight: true
        status: view.composer.warnings.status
        errorString: view.composer.warnings.errorString
        empty: view.composer.warnings.count === 0
        emptyText: qsTr("No warnings, no lint findings, no taint.")
        noneText: qsTr("Evaluating…")
    }
    ListView {
        id: list
        Layout.fillWidth: true
        Layout.fillHeight: true
        visible: view.composer.warnings.status === ModelStatus.Ready && view.composer.warnings.count > 0
        clip: true
        spacing: 6
        model: view.composer.warnings
        delegate: RowLayout {
            id: w
            required property string kind
            required property string message
            required property string rule
            required property string source
            width: list.width
            Badge {
                Layout.alignment: Qt.AlignTop
                text: w.kind + (w.rule.length > 0 ? " " + w.rule : "")
                tint: w.kind === "taint" ? "#c62828" : w.kind === "lint" ? "#ef6c00" : "#607d8b"
            }
            Label {
                Layout.fillWidth: true
                text: w.message + (w.source.length > 0 ? "\n" + w.source : "")
                wrapMode: Text.Wrap
                font.pixelSize: 12
            }
        }
        ScrollBar.vertical: ScrollBar {}
    }
}
