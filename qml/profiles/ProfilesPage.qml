// Profiles: projects and agents, the tier stack, the layer editor and the effective policy.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    padding: 20
    ColumnLayout {
        anchors.fill: parent
        PageHeader {
            Layout.fillWidth: true
            title: qsTr("Profiles")
            subtitle: qsTr("Pick a project and an agent to see exactly what the agent may touch.")
        }
        Item { Layout.fillHeight: true }
    }
}
