# Jacobi with dynamic load balancing (apps/jacobi.h): library part and the fupermod-jacobi driver.
libfupermod_apps_la_SOURCES += apps/jacobi.c apps/jacobi.h
bin_PROGRAMS += apps/fupermod-jacobi
apps_fupermod_jacobi_SOURCES = apps/jacobi_main.c
apps_fupermod_jacobi_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(LIBS)
