// Sessions started from the GUI or the CLI: one row per directory under the sessions dir.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property SessionsModel model
    padding: 20

    ColumnLayout {
        anchors.fill: parent
        spacing: 12

        RowLayout {
            Layout.fillWidth: true
            PageHeader {
                Layout.fillWidth: true
                title: qsTr("Sessions")
                subtitle: qsTr("Every sandboxed run, from this app or from 'paddock run'. Stored in %1")
                          .arg(AppPaths.sessionsDir)
            }
            Button {
                text: qsTr("Refresh")
                onClicked: page.model.reload()
            }
        }

        StatusPlaceholder {
            objectName: "sessionsPlaceholder"
            Layout.fillWidth: true
            Layout.fillHeight: true
            status: page.model.status
            errorString: page.model.errorString
            empty: page.model.count === 0
            emptyText: qsTr("No sessions yet. Launch an agent from Profiles, or run\n"
                            + "paddock run --project DIR -- COMMAND")
        }

        ListView {
            id: list
            objectName: "sessionsList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.model.count > 0
            clip: true
            spacing: 6
            model: page.model
            delegate: SessionRow {
                width: list.width
            }
        }
    }
}
