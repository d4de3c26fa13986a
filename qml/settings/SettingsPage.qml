// Paths in use and what this machine can enforce (`paddock-helper probe`, as `paddock doctor`).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    padding: 20

    DoctorModel {
        id: doctor
        Component.onCompleted: refresh()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 12

        PageHeader {
            Layout.fillWidth: true
            title: qsTr("Settings")
            subtitle: qsTr("Where Paddock looks for things, and what this kernel can enforce.")
        }

        GroupBox {
            title: qsTr("Paths in use")
            Layout.fillWidth: true
            GridLayout {
                anchors.fill: parent
                columns: 2
                columnSpacing: 16
                Label { text: qsTr("Helper") }
                PathLabel { objectName: "helperPath"; text: AppPaths.helperPath }
                Label { text: qsTr("Resources") }
                PathLabel { text: AppPaths.resourcesDir }
                Label { text: qsTr("Config dir") }
                PathLabel { text: AppPaths.configDir }
                Label { text: qsTr("State dir") }
                PathLabel { text: AppPaths.stateDir }
            }
        }

        GroupBox {
            title: qsTr("Doctor (paddock-helper probe)")
            Layout.fillWidth: true
            Layout.fillHeight: true

            ColumnLayout {
                anchors.fill: parent
                RowLayout {
                    Label {
                        Layout.fillWidth: true
                        text: qsTr("Probed by the same helper that enforces the sandbox.")
                        opacity: 0.75
                    }
                    Button {
                        text: qsTr("Probe again")
                        enabled: doctor.status !== ModelStatus.Loading
                        onClicked: doctor.refresh()
                    }
                }
                StatusPlaceholder {
                    objectName: "doctorPlaceholder"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    status: doctor.status
                    errorString: doctor.errorString
                    empty: doctor.count === 0
                    emptyText: qsTr("The helper reported nothing.")
                    loadingText: qsTr("Probing the kernel…")
                }
                ListView {
                    id: facts
                    objectName: "doctorList"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    visible: doctor.status === ModelStatus.Ready && doctor.count > 0
                    clip: true
                    model: doctor
                    delegate: RowLayout {
                        id: fact
                        required property string name
                        required property string value
                        width: facts.width
                        Label {
                            Layout.preferredWidth: 260
                            text: fact.name
                            font.family: "monospace"
                        }
                        Label {
                            Layout.fillWidth: true
                            text: fact.value
                            elide: Text.ElideRight
                        }
                    }
                    ScrollBar.vertical: ScrollBar {}
                }
            }
        }
    }
}
