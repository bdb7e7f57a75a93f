#!/usr/bin/env bash
source ./lib/text.sh

label="größe 📐"; trim "$label"
