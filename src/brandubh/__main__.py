from brandubh.cli import main

main()
