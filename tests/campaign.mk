# Campaigns: fupermod campaign run (resume after a kill), summary, OAR and Slurm scripts.
TESTS += tests/tools_campaign.sh
EXTRA_DIST += tests/tools_campaign.sh
