# Campaigns: fupermod campaign run (resume after a kill), summary, OAR and Slurm scripts.
TESTS += tests/tools_campaign.sh
EXTRA_DIST += tests/tools_campaign.sh
# Issue 51: provenance, a changed spec refused, shared models, intervals and verdicts, ESTIMATE labels.
TESTS += tests/tools_campaign_provenance.sh
EXTRA_DIST += tests/tools_campaign_provenance.sh
