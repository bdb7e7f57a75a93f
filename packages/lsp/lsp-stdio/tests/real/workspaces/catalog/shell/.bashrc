# Sourced by interactive shells; served by name, it has no extension.
source ./lib/text.sh

prompt="größe 📐"; trim "$prompt"
