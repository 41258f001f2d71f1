@echo off
rem Starts the rpa_mcp workstation agent {version} in this person's session.
rem Run it at log-on (a shortcut in the Startup folder, or a Task Scheduler "at log on" task):
rem never as a service, which runs in session 0 and sees no desktop. See README.txt.
cd /d "%~dp0"
"%~dp0python.exe" -m rpa_agent run --config "%~dp0agent.ini" %*
