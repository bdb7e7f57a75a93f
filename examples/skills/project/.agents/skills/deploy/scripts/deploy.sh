#!/bin/sh
# A toy deploy step for the deploy skill: it only says what it would do.
echo "deployed to ${1:?usage: deploy.sh <environment>}"
