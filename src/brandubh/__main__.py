from brandubh.run.cli import main

main()
