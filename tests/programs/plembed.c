// SPDX-License-Identifier: GPL-2.0-only
/*
 * plembed ARGS...: a program that embeds Perl, as perlembed(1) shows, with
 * the interpreter in the shared libperl.so it is linked with (where
 * PL_current_context lives in libperl's TLS block, not the executable's):
 * runs perl ARGS... (pure Perl: no XS module can be loaded, as no xs_init
 * is given).
 */
#include <EXTERN.h>
#include <perl.h>

static PerlInterpreter *my_perl;

int main(int argc, char **argv, char **env)
{
	int status;

	PERL_SYS_INIT3(&argc, &argv, &env);
	my_perl = perl_alloc();
	perl_construct(my_perl);
	PL_exit_flags |= PERL_EXIT_DESTRUCT_END;
	status = perl_parse(my_perl, NULL, argc, argv, NULL);
	if (status == 0)
		status = perl_run(my_perl);
	perl_destruct(my_perl);
	perl_free(my_perl);
	PERL_SYS_TERM();
	return status;
}
