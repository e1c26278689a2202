-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 11: what was run, as the recorder was told.
--
-- runs.params: a JSON object of strings, the `schedlens record --param KEY=VALUE` of the
--   run (the lab stores its workload, the workload's options and the kernel package:
--   docs/lab.md), e.g. {"workload":"pgbench","clients":"16","scale":"2"}; NULL if none.
--   Query it with json_extract(params, '$.scale').
ALTER TABLE runs ADD COLUMN params TEXT;
