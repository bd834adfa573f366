"""The command line: run, demo, doctor, the local forum's tools."""
