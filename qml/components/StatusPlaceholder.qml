// What a pane shows instead of being blank: loading, an error with its message, or an empty state
// that says what to do. Bind `status`/`errorString` to a model's; `empty` when it has no rows.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Item {
    id: root
    property int status: ModelStatus.None
    property string errorString: ""
    property bool empty: false
    property string emptyText: qsTr("Nothing here yet.")
    property string loadingText: qsTr("Loading…")
    property string noneText: emptyText

    readonly property bool active: status === ModelStatus.Loading
                                   || status === ModelStatus.Error
                                   || status === ModelStatus.None
                                   || (status === ModelStatus.Ready && empty)
    visible: active
    implicitHeight: column.implicitHeight + 24
    implicitWidth: column.implicitWidth

    ColumnLayout {
        id: column
        anchors.centerIn: parent
        width: Math.min(parent.width - 24, 640)
        spacing: 8

        BusyIndicator {
            Layout.alignment: Qt.AlignHCenter
            running: root.status === ModelStatus.Loading
            visible: running
        }
        Label {
            id: message
            objectName: "placeholderText"
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            color: root.status === ModelStatus.Error ? "#c62828" : message.palette.windowText
            text: root.status === ModelStatus.Loading ? root.loadingText
                : root.status === ModelStatus.Error ? root.errorString
                : root.status === ModelStatus.None ? root.noneText
                : root.emptyText
        }
    }
}
