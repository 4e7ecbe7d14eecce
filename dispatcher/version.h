/* musterd's version string, from CMake's project() version. */
#ifndef MUSTER_DISPATCHER_VERSION_H
#define MUSTER_DISPATCHER_VERSION_H

const char *disp_version(void);

#endif
