from adk_runtime.cli import main

main()
