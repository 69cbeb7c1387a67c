/*
 * doctor.h: `slipway doctor` (doctor.c).
 */
#ifndef SW_CLI_DOCTOR_H
#define SW_CLI_DOCTOR_H

struct sw_doctor_opts {
	const char *state_dir;
	const char *conf_file; /* slipway.conf path (may not exist) */
	const char *nginx; /* nginx binary */
	const char *nginx_template;
	const char *actions_file; /* IAM actions, one a line */
	int local; /* no network checks */
	int json; /* findings as one JSON document */
};

/*
 * Check the installation and print one finding a line (or JSON).
 * Returns the exit status: 0 when every check passed, 1 otherwise.
 * All strings are borrowed.
 */
int sw_cli_doctor(const struct sw_doctor_opts *);

#endif
