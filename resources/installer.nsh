; Catalog Courier's additions to electron-builder's NSIS installer (electron-builder.yml
; nsis.include). The courier command (README, "From the app: Install Command-Line Tool"): the
; installer offers to add the folder holding courier.cmd to the user's PATH, and the uninstaller
; takes it out again.
; PATH is read and written as it is stored (REG_EXPAND_SZ, %VARIABLES% kept unexpanded) through
; PowerShell, adding the folder once however often the installer runs; the folder reaches the
; script in an environment variable, so no quoting can break. A silent install (/S) leaves PATH.

!include LogicLib.nsh
!include WinMessages.nsh

!define COURIER_PATH_SCRIPT "$$k = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment'); $$d = $$env:COURIER_BIN.TrimEnd('\'); $$p = [string]$$k.GetValue('Path', '', 'DoNotExpandEnvironmentNames'); $$keep = @($$p -split ';' | Where-Object { $$_ -and $$_.TrimEnd('\') -ne $$d });"

!macro customInstall
  ; An update keeps what the first installation chose (the uninstaller left PATH as it was).
  ${IfNot} ${isUpdated}
    MessageBox MB_YESNO|MB_ICONQUESTION "Add the courier command to your PATH?$\r$\n$\r$\nThen courier, Catalog Courier's command line, runs in any new terminal. The uninstaller removes it again." /SD IDNO IDNO courier_path_done
    System::Call 'Kernel32::SetEnvironmentVariable(t "COURIER_BIN", t "$INSTDIR\resources\bin")i'
    nsExec::ExecToLog `"$SYSDIR\WindowsPowerShell\v1.0\powershell.exe" -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "${COURIER_PATH_SCRIPT} $$k.SetValue('Path', (($$keep + $$env:COURIER_BIN) -join ';'), 'ExpandString')"`
    Pop $2
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
    courier_path_done:
  ${EndIf}
!macroend

!macro customUnInstall
  ; An update runs the old uninstaller first: the PATH entry stays for the new version.
  ${IfNot} ${isUpdated}
    System::Call 'Kernel32::SetEnvironmentVariable(t "COURIER_BIN", t "$INSTDIR\resources\bin")i'
    nsExec::ExecToLog `"$SYSDIR\WindowsPowerShell\v1.0\powershell.exe" -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "${COURIER_PATH_SCRIPT} $$k.SetValue('Path', ($$keep -join ';'), 'ExpandString')"`
    Pop $2
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  ${EndIf}
!macroend
