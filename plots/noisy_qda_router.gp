# noisy, Thm 1: excess classification error of the QDA router vs sample size n, per rule
# ("printed": the rule as printed, "corrected": moelab's corrected rule, "bayes": the Bayes rule).
# Usage: gnuplot -e "csv='results/noisy_qda_router.csv'; png='results/noisy_qda_router.png'" plots/noisy_qda_router.gp
# CSV columns: n,rule,error_mean,error_std_error,excess_mean,excess_std_error,bayes_error
# ('#' metadata lines first, then the header).
if (!exists("csv")) csv = 'results/noisy_qda_router.csv'
if (!exists("png")) png = 'results/noisy_qda_router.png'
if (!exists("plot_title")) plot_title = "noisy Thm 1: excess error of the QDA router vs n"

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000,700 enhanced font ",11"
} else {
  set terminal png size 1000,700
}

# One datablock per rule (columns: n, excess_mean, excess_std_error).
set datafile separator comma
set datafile columnheaders
set table $printed
plot csv using 1:5:6 with table if (strcol(2) eq "printed")
set table $corrected
plot csv using 1:5:6 with table if (strcol(2) eq "corrected")
set table $bayes
plot csv using 1:5:6 with table if (strcol(2) eq "bayes")
unset table
set datafile separator whitespace
set datafile nocolumnheaders

set output png
set title plot_title
set xlabel "samples n"
set ylabel "excess error over the Bayes error"
set logscale x
set grid
set key top right box opaque
set bars small
plot $printed   using 1:2:3 with yerrorlines pt 7 ps 1.0 lc rgb "#ff7f0e" title "rule as printed: mean ± s.e.", \
     $corrected using 1:2:3 with yerrorlines pt 5 ps 1.0 lc rgb "#2ca02c" title "corrected rule: mean ± s.e.", \
     $bayes     using 1:2:3 with yerrorlines pt 9 ps 1.0 lc rgb "#000000" title "Bayes rule (plug-in of the truth): mean ± s.e."
