// IR fields × every backend (the model's columns): exact (green), partial (amber), unsupported
// (red); hover a cell for what it needs and what is lost. This OS's column is highlighted; fields
// the current IR requests are in bold.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: view
    required property PolicyComposer composer
    readonly property CapabilityModel caps: composer.capabilities
    readonly property var oses: caps.backends

    function tint(support) {
        return support === "exact" ? "#2e7d32" : support === "partial" ? "#f9a825" : "#c62828"
    }

    RowLayout {
        Layout.fillWidth: true
        visible: view.caps.status === ModelStatus.Ready
        Label {
            text: qsTr("IR field")
            font.bold: true
            Layout.fillWidth: true
        }
        Repeater {
            model: view.oses
            delegate: Label {
                required property string modelData
                text: modelData + (modelData === view.caps.hostOs ? qsTr(" (this OS)") : "")
                font.bold: true
                Layout.preferredWidth: 84
                horizontalAlignment: Text.AlignHCenter
                color: modelData === view.caps.hostOs ? "#1565c0" : palette.windowText
            }
        }
    }
    StatusPlaceholder {
        Layout.fillWidth: true
        Layout.fillHeight: true
        status: view.caps.status
        errorString: view.caps.errorString
        empty: view.caps.count === 0
        loadingText: qsTr("Probing this kernel…")
    }
    ListView {
        id: list
        objectName: "capabilityList"
        Layout.fillWidth: true
        Layout.fillHeight: true
        visible: view.caps.status === ModelStatus.Ready && view.caps.count > 0
        clip: true
        model: view.caps
        delegate: RowLayout {
            id: capRow
            required property string field
            required property var cells
            required property bool requested
            width: list.width
            height: 24
            Label {
                Layout.fillWidth: true
                text: capRow.field
                font.family: "monospace"
                font.pixelSize: 11
                font.bold: capRow.requested
                opacity: capRow.requested ? 1.0 : 0.75
                elide: Text.ElideRight
            }
            Repeater {
                model: capRow.cells
                delegate: Rectangle {
                    id: cellBox
                    required property var modelData
                    required property int index
                    Layout.preferredWidth: 84
                    Layout.preferredHeight: 20
                    radius: 4
                    color: view.tint(modelData.support)
                    opacity: view.oses[index] === view.caps.hostOs ? 1.0 : 0.7
                    border.width: view.oses[index] === view.caps.hostOs ? 2 : 0
                    border.color: "#1565c0"
                    Label {
                        anchors.centerIn: parent
                        text: cellBox.modelData.support
                        color: "white"
                        font.pixelSize: 11
                    }
                    HoverHandler { id: hover }
                    ToolTip.visible: hover.hovered
                    ToolTip.text: qsTr("needs: %1").arg(cellBox.modelData.needs)
                                  + (cellBox.modelData.mechanism.length > 0 ? "\n" + qsTr("by: %1").arg(cellBox.modelData.mechanism) : "")
                                  + (cellBox.modelData.loss.length > 0 ? "\n" + qsTr("loss: %1").arg(cellBox.modelData.loss) : "")
                }
            }
        }
        ScrollBar.vertical: ScrollBar {}
    }
}
