// The frozen IR as pretty canonical JSON (keys sorted), the bytes ir_hash is computed over.
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
        status: view.composer.status
        errorString: view.composer.errorString
        empty: view.composer.irJson.length === 0
        noneText: qsTr("Evaluating…")
    }
    ScrollView {
        Layout.fillWidth: true
        Layout.fillHeight: true
        visible: view.composer.status === ModelStatus.Ready
        TextArea {
            objectName: "irText"
            readOnly: true
            selectByMouse: true
            font.family: "monospace"
            font.pixelSize: 11
            wrapMode: TextEdit.NoWrap
            text: view.composer.irJson
        }
    }
}
