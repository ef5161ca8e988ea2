from phronesis.cli import main

main()
