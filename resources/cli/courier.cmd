@echo off
rem courier: Catalog Courier's command line, run by the app itself (README, "From the app:
rem Install Command-Line Tool"). electron-builder ships this file as <resources>\bin\courier.cmd; the installer
rem adds that folder to the user's PATH. The app runs the CLI when its first argument is
rem --courier-cli; the -- after it keeps Chromium from reading the arguments as its switches.
setlocal
"%~dp0..\..\Catalog Courier.exe" --courier-cli -- %*
exit /b %ERRORLEVEL%
